import "server-only";

import { dynamodbKind } from "@/lib/sources/dynamodb/dynamodb-kind";
import { etcdKind } from "@/lib/sources/etcd/etcd-kind";
import { pulsarKind } from "@/lib/sources/pulsar/pulsar-kind";
import { redisKind } from "@/lib/sources/redis/redis-kind";
import type { SourceKind } from "@/lib/poller/contract/source-kind";
import { zookeeperKind } from "@/lib/sources/zookeeper/zookeeper-kind";

// The kinds of system Baton watches: one line each. A cluster entry in the configuration names
// its kind ("pulsar" when it names none).
export const SOURCE_KINDS = [pulsarKind, redisKind, zookeeperKind, etcdKind, dynamodbKind] as const;

export type AnySourceKind = (typeof SOURCE_KINDS)[number];
/** A configured cluster of any kind, told apart by `kind`. */
export type ClusterConfig = ReturnType<AnySourceKind["resolveConfig"]>;
export type SourceKindName = ClusterConfig["kind"];

export const DEFAULT_SOURCE_KIND: SourceKindName = "pulsar";

export function findSourceKind(kind: string): AnySourceKind | undefined {
  return SOURCE_KINDS.find((k) => k.kind === kind);
}

/**
 * The kind of a configured cluster. Its functions take exactly that kind's config: a cluster is
 * only ever handed to the entry whose `kind` it carries, which is what the cast states.
 */
export function sourceKindOf(cluster: ClusterConfig): SourceKind<ClusterConfig> {
  return findSourceKind(cluster.kind) as unknown as SourceKind<ClusterConfig>;
}
