// What one successful poll saw of one held resource (a subscription on one partition), and the
// state Baton keeps between polls. Client-safe types and pure helpers.

import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";

export type ConsumerObservation = {
  name: string;
  /** ISO time the consumer's connection was established, as the broker reports it. */
  connectedSince: string | null;
  msgRateOut: number | null;
  availablePermits: number | null;
  unackedMessages: number | null;
  /** Epoch ms of the last message delivered to it. */
  lastConsumedAt: number | null;
  address: string | null;
  clientVersion: string | null;
};

export type ResourceIdentity = {
  resourceKey: string;
  /** Full base topic name (no -partition-N). */
  topic: string;
  tenant: string;
  namespace: string;
  /** -1 for a non-partitioned topic. */
  partition: number;
  subscription: string;
};

export type Observation = ResourceIdentity & {
  subscriptionType: string | null;
  isDurable: boolean;
  /** The active consumer; null when there is none (or the type has none: Shared, Key_Shared). */
  holder: string | null;
  consumers: ConsumerObservation[];
  hashRanges: HashRangeSplit | null;
  backlog: number | null;
  msgRateOut: number | null;
};

export type BacklogSample = { at: string; backlog: number | null; msgRateOut: number | null; holder: string | null };

/** What Baton keeps of a resource between polls (and in held_resource). */
export type ResourceState = Observation & {
  holderSince: string | null;
  /** The last poll that observed the resource; null if it never was. */
  lastObservedAt: string | null;
  /** Set while polls of it fail: the fields above are the last known, not current. */
  staleSince: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  goneAt: string | null;
  lastChangeAt: string | null;
  recentSamples: BacklogSample[];
};

/** How many backlog samples a resource keeps: enough for "growing while the holder is unchanged". */
export const MAX_RECENT_SAMPLES = 12;
