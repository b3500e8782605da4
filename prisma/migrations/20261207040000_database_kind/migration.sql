-- The database source kind (PostgreSQL advisory locks): a cluster kind and the resource kind of its locks.
ALTER TYPE "cluster_kind" ADD VALUE 'DATABASE' BEFORE 'KUBERNETES';
ALTER TYPE "resource_kind" ADD VALUE 'DATABASE_LOCK' BEFORE 'KUBERNETES_LEASE';
