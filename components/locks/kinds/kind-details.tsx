import type { ComponentType } from "react";

import { DynamodbDetails } from "@/components/locks/kinds/dynamodb-details";
import { EtcdDetails } from "@/components/locks/kinds/etcd-details";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { isDatabaseHolderStuck, isEtcdLeaseUnrenewed, summarizeKindDetails } from "@/components/locks/kinds/kind-facts";
import { OtherDetails } from "@/components/locks/kinds/other-details";
import { RedisDetails } from "@/components/locks/kinds/redis-details";
import { ZookeeperDetails } from "@/components/locks/kinds/zookeeper-details";
import { isLockSourceKind, type LockSourceKind } from "@/lib/sources/kind-descriptions";

// The one lookup from a lock kind to its panel, one line per kind (keys are checked against the
// kinds of lib/sources/kind-descriptions.ts): a kind without one shows its details as a plain
// key/value list.
const PANELS: Partial<Record<LockSourceKind, ComponentType<KindDetailsProps>>> = {
  redis: RedisDetails,
  zookeeper: ZookeeperDetails,
  etcd: EtcdDetails,
  dynamodb: DynamodbDetails,
};

/** The lock page's panel of the kind's own details. */
export function LockKindDetails({ kind, ...props }: KindDetailsProps & { kind: string }) {
  const Panel = (isLockSourceKind(kind) ? PANELS[kind] : undefined) ?? OtherDetails;
  return <Panel {...props} />;
}

/** The board's cell: the kind's most telling details in a line, and the kinds' loud flags (an etcd lease not renewed, a PostgreSQL holder stuck in a transaction). */
export function LockKindCell({ kind, details }: { kind: string; details: Record<string, unknown> }) {
  const summary = summarizeKindDetails(kind, details);
  const isUnrenewed = kind === "etcd" && isEtcdLeaseUnrenewed(details);
  const isStuck = kind === "database" && isDatabaseHolderStuck(details);
  if (summary === null && !isUnrenewed && !isStuck) return <span className="muted">—</span>;
  return (
    <span className="kind-cell">
      {summary === null ? null : <span className="mono small">{summary}</span>}
      {isUnrenewed ? <strong className="loud"> lease not renewed</strong> : null}
      {isStuck ? <strong className="loud"> stuck idle in transaction</strong> : null}
    </span>
  );
}
