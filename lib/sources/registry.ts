import "server-only";

import { databaseKind } from "@/lib/sources/database/database-kind";
import { dynamodbKind } from "@/lib/sources/dynamodb/dynamodb-kind";
import { etcdKind } from "@/lib/sources/etcd/etcd-kind";
import { isRegisteredKind, KIND_DESCRIPTIONS, type RegisteredKindName } from "@/lib/sources/kind-descriptions";
import { pulsarKind } from "@/lib/sources/pulsar/pulsar-kind";
import { redisKind } from "@/lib/sources/redis/redis-kind";
import type { SourceKind } from "@/lib/poller/contract/source-kind";
import { zookeeperKind } from "@/lib/sources/zookeeper/zookeeper-kind";

// The kinds Baton reads, on the server: one line each, keyed by the names of the client-safe
// list (lib/sources/kind-descriptions.ts), so a described kind without its server part, or a
// server part under another name, does not compile. Only the composition roots import this
// module (the worker, the configuration, health, the Clusters page, the docs generator).
const SERVER_KINDS = {
  pulsar: pulsarKind,
  redis: redisKind,
  zookeeper: zookeeperKind,
  etcd: etcdKind,
  dynamodb: dynamodbKind,
  database: databaseKind,
} satisfies { [K in RegisteredKindName]: { kind: K } };

/** The server kinds, in the order of the descriptions. A cluster entry in the configuration names its kind ("pulsar" when it names none). */
export const SOURCE_KINDS = KIND_DESCRIPTIONS.map((description) => SERVER_KINDS[description.kind]);

export type AnySourceKind = (typeof SERVER_KINDS)[RegisteredKindName];
/** A configured cluster of any kind, told apart by `kind`. */
export type ClusterConfig = ReturnType<AnySourceKind["parseConfig"]>;
export type SourceKindName = ClusterConfig["kind"];

export const DEFAULT_SOURCE_KIND: SourceKindName = "pulsar";

export function findSourceKind(kind: string): AnySourceKind | undefined {
  return isRegisteredKind(kind) ? SERVER_KINDS[kind] : undefined;
}

/**
 * The kind of a configured cluster. Its functions take exactly that kind's config: a cluster is
 * only ever handed to the entry whose `kind` it carries, which is what the cast states (TypeScript
 * cannot correlate the union of configs with the union of kinds).
 */
export function sourceKindOf(cluster: ClusterConfig): SourceKind<ClusterConfig> {
  return SERVER_KINDS[cluster.kind] as unknown as SourceKind<ClusterConfig>;
}
