-- The DynamoDB lock-table source kind: a cluster kind and the resource kind of its locks.
ALTER TYPE "cluster_kind" ADD VALUE 'DYNAMODB' BEFORE 'KUBERNETES';
ALTER TYPE "resource_kind" ADD VALUE 'DYNAMODB_LOCK' BEFORE 'KUBERNETES_LEASE';
