// What one kind of source says of itself to the lists, the pages and the read API: client-safe
// (no server module, no client library), so the board, the filters and the OpenAPI enums derive
// from it. Each kind writes one in its own folder (`<kind>-description.ts`); the server part of
// the kind (`<kind>-kind.ts`, lib/sources/registry.ts) builds on it.

import type { ClusterKind, ResourceKind } from "@/lib/db/generated/enums";
import type { PredictNextHolder } from "@/lib/poller/next-holder";

/** "How long the hold lasts unless renewed", in the kind's own word, and where Baton reads the figure. */
export type HoldTerm = {
  /** "TTL", "Lease", "Session timeout". */
  term: string;
  /** Where Baton reads it, in words: the lock page says it beside the figure. */
  source: string;
};

type CommonDescription = {
  /** The `kind` of a cluster entry in the configuration, and the read API's and the board's `kind`. */
  kind: string;
  /** How people name it ("Redis", "ZooKeeper"): the Clusters page, and the lock page's "<label> details". */
  label: string;
  /** The cluster row's kind (the cluster_kind enum). */
  clusterKind: ClusterKind;
  /** The board's kind filter says it so: "Redis locks". */
  boardWords: string;
};

/** A kind whose held things are subscription partitions (Pulsar). */
export type SubscriptionKindDescription = CommonDescription & {
  shape: "subscription-partition";
  resourceKind: Extract<ResourceKind, "PULSAR_SUBSCRIPTION_PARTITION">;
};

/** A lock-like kind: its held things are holds with a holder, a token, a TTL and maybe a queue. */
export type LockKindDescription = CommonDescription & {
  shape: "hold";
  /** The held_resource kind its holds are stored as (the resource_kind enum). */
  resourceKind: Exclude<ResourceKind, "PULSAR_SUBSCRIPTION_PARTITION">;
  /** Its word for the TTL, from the hold's details (a Redlock group's TTL is read on several masters). */
  describeHoldTerm(details: Record<string, unknown>): HoldTerm;
  /**
   * Who takes over if the holder lets go: the head of the queue where the kind's holders queue
   * (`waiters` in queue order), "no queue" where they race. Pure: the board and the poller's
   * change scoring ask it the same question from the same state.
   */
  predictNextHolder: PredictNextHolder;
  /**
   * Where the kind's own records tell that the holder is stuck (a PostgreSQL session idle in a
   * transaction past its bound keeps its locks until someone ends it): why, in words, from the
   * hold's details; null when they do not. The board's stuck-holder finding, and its alert, use it.
   */
  describeStuckHolder?(details: Record<string, unknown>): string | null;
};

export type KindDescription = SubscriptionKindDescription | LockKindDescription;

/** Keeps a description's literal names (its `kind`, its enums), from which the unions derive. */
export function describeKind<const D extends KindDescription>(description: D): D {
  return description;
}
