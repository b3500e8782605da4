import type { HoldResourceKind } from "@/lib/poller/source-cycles";
import type { ClusterKindName } from "@/lib/sources/source-kind";

/** The resource kind of a lock-like cluster kind's locks (Pulsar's is not a hold: REDIS_LOCK stands unused there). */
export function holdResourceKindOf(clusterKind: ClusterKindName): HoldResourceKind {
  if (clusterKind === "ZOOKEEPER") return "ZOOKEEPER_LOCK";
  if (clusterKind === "ETCD") return "ETCD_LOCK";
  if (clusterKind === "DYNAMODB") return "DYNAMODB_LOCK";
  return "REDIS_LOCK";
}
