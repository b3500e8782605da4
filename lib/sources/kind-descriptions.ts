// The kinds Baton knows, for everything that lists them: one line each. Client-safe. The board's
// kinds and words, the lock page's titles and TTL terms, the next-in-line rule, the read API's
// `kind` and the OpenAPI enums derive from this list; the server registry (registry.ts) holds
// one server kind per registered description, and a unit test holds both, and the database
// enums, to it (tests/unit/sources/kind-lists.test.ts).

import { cannotPredict } from "@/lib/poller/next-holder";
import { databaseDescription } from "@/lib/sources/database/database-description";
import { dynamodbDescription } from "@/lib/sources/dynamodb/dynamodb-description";
import { etcdDescription } from "@/lib/sources/etcd/etcd-description";
import { describeKind } from "@/lib/sources/kind-description";
import { pulsarDescription } from "@/lib/sources/pulsar/pulsar-description";
import { redisDescription } from "@/lib/sources/redis/redis-description";
import { zookeeperDescription } from "@/lib/sources/zookeeper/zookeeper-description";

/** The kinds Baton reads: each has its folder under lib/sources/ and one line in registry.ts. */
export const KIND_DESCRIPTIONS = [
  pulsarDescription,
  redisDescription,
  zookeeperDescription,
  etcdDescription,
  dynamodbDescription,
  databaseDescription,
] as const;

/**
 * Kubernetes Leases: named but not read, so described here rather than in a folder of its own.
 * The database enums hold KUBERNETES and KUBERNETES_LEASE since the first migration, the read
 * API's `kind` has accepted "kubernetes" (docs/http-api.md: an empty list, as no cluster row can
 * be of a kind the configuration refuses), and docs/kubernetes-lease-kind.md says how it would be
 * built where an API server can be tested against. Building it moves this into
 * lib/sources/kubernetes/ and adds its line to KIND_DESCRIPTIONS and to registry.ts.
 */
const kubernetesDescription = describeKind({
  kind: "kubernetes",
  label: "Kubernetes",
  clusterKind: "KUBERNETES",
  boardWords: "Kubernetes leases",
  shape: "hold",
  resourceKind: "KUBERNETES_LEASE",
  describeHoldTerm: () => ({ term: "Lease", source: "the Lease's leaseDurationSeconds" }),
  predictNextHolder: () => cannotPredict("no-queue", "a Lease has no queue: whichever candidate renews first takes it"),
});

/** Kinds the lists name although Baton reads none of them (see kubernetesDescription). */
export const RESERVED_KIND_DESCRIPTIONS = [kubernetesDescription] as const;

export const ALL_KIND_DESCRIPTIONS = [...KIND_DESCRIPTIONS, ...RESERVED_KIND_DESCRIPTIONS] as const;

type AnyKindDescription = (typeof ALL_KIND_DESCRIPTIONS)[number];
type LockDescription = Extract<AnyKindDescription, { shape: "hold" }>;

/** Every kind the lists name, read or reserved. */
export type KindName = AnyKindDescription["kind"];
/** A kind Baton reads: a cluster entry's `kind`. */
export type RegisteredKindName = (typeof KIND_DESCRIPTIONS)[number]["kind"];
/** A source kind that holds locks, as the configuration names it (the cluster's kind, lower case). */
export type LockSourceKind = LockDescription["kind"];
/** The held_resource kinds that are locks (every kind but Pulsar's subscription partitions). */
export type LockResourceKind = LockDescription["resourceKind"];

const isLockDescription = (description: AnyKindDescription): description is LockDescription => description.shape === "hold";

/** The kinds Baton reads, in the list's order: a cluster entry's `kind`. */
export const REGISTERED_KINDS: readonly RegisteredKindName[] = KIND_DESCRIPTIONS.map((description) => description.kind);

/** The lock kinds' descriptions, in the list's order. */
export const LOCK_DESCRIPTIONS: readonly LockDescription[] = ALL_KIND_DESCRIPTIONS.filter(isLockDescription);
export const LOCK_SOURCE_KINDS: readonly LockSourceKind[] = LOCK_DESCRIPTIONS.map((description) => description.kind);
export const LOCK_RESOURCE_KINDS: readonly LockResourceKind[] = LOCK_DESCRIPTIONS.map((description) => description.resourceKind);

export function findKindDescription(kind: string): AnyKindDescription | undefined {
  return ALL_KIND_DESCRIPTIONS.find((description) => description.kind === kind);
}

export function isRegisteredKind(kind: string): kind is RegisteredKindName {
  return (REGISTERED_KINDS as readonly string[]).includes(kind);
}

export function isLockSourceKind(kind: string): kind is LockSourceKind {
  return (LOCK_SOURCE_KINDS as readonly string[]).includes(kind);
}

/** The description of a lock kind; throws on a kind outside the list (a row the types did not foresee). */
export function lockDescriptionOf(kind: LockSourceKind | LockResourceKind): LockDescription {
  const description = LOCK_DESCRIPTIONS.find((d) => d.kind === kind || d.resourceKind === kind);
  if (description === undefined)
    throw new Error(`"${kind}" is not a lock kind Baton knows (lib/sources/kind-descriptions.ts lists ${LOCK_SOURCE_KINDS.join(", ")})`);
  return description;
}
