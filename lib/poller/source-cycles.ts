// The seam between the kind-free poll loop (run-source-poller.ts) and a source kind: each kind
// opens "cycles" that read its held things once per call and detect what changed; the loop
// schedules them, fences them with the poller lease, and saves what they found.

import type { ResourceKind } from "@/lib/db/generated/enums";
import type { DetectedChange } from "@/lib/poller/change";
import type { ConcurrentHoldPair } from "@/lib/poller/concurrent-hold-events";
import type { HoldState } from "@/lib/poller/hold-state";
import type { ResourceState } from "@/lib/poller/contract/partition-state";

/** The resource kinds whose states are holds (locks of any lock-like kind): the resource_kind enum but Pulsar's. */
export type HoldResourceKind = Exclude<ResourceKind, "PULSAR_SUBSCRIPTION_PARTITION">;

/**
 * What a kind's cycles store: subscription partitions, or holds of one resource kind.
 * `movingDetails`: the keys of the kind's hold details that move on every read of an unchanged
 * hold (a store revision, seconds left): written as moving figures, once a flush interval, not as
 * changes (row-changes.ts). Every other detail is a change.
 */
export type StoredShape = { shape: "subscription-partition" } | { shape: "hold"; resourceKind: HoldResourceKind; movingDetails?: readonly string[] };

/** What a cycle touched, in one of the two shapes held_resource stores. */
export type CycleStates = { shape: "subscription-partition"; states: ResourceState[] } | { shape: "hold"; resourceKind: HoldResourceKind; states: HoldState[] };

export type CycleResult = {
  states: CycleStates;
  /**
   * The cycle read every known resource (those it could not read are among its states, stale):
   * its time then stands for the last observation of every row it did not need to write. False
   * for a read of a few signalled resources between full reads.
   */
  isFullSweep: boolean;
  changes: DetectedChange[];
  /** Reads that failed, by target (a topic, a lock key, a master). */
  errors: { target: string; message: string }[];
  /** What the cycle read: topics, or locks. */
  targetCount: number;
  requestCount: number;
  /** Wait at least this long before the next cycle (the source asked to, e.g. HTTP 429). */
  retryAfterMs: number;
  /** How long this cycle's discovery (topic listing, SCAN, znode or key walk) took; null when none was due. */
  discoveryMs: number | null;
  /**
   * A re-poll of a few things a change signal named, handed back while the full cycle is still
   * reading (Pulsar): saved at once, but neither a cycle of its own (no poll-run record, no
   * cycle time) nor a reason to wait.
   */
  isRepoll?: boolean;
  /** When the full cycle this result ends began, when it began before this call of run(). */
  startedAtMs?: number;
  /** Holds of exclusive locks the reads saw running at once (each pair, every read that saw it): recorded as violations. */
  concurrentHolds?: ConcurrentHoldPair[];
};

export type SourceCycles = {
  /** One cycle: discovery when it is due, one read of every known target, change detection. Saves nothing. */
  run(): Promise<CycleResult>;
  /** The loop saved the cycle: its states become the ones the next cycle compares with. */
  commit(result: CycleResult): void;
  /** Sleeps until `untilMs`, or returns earlier when the source signals a change worth reading now. */
  waitForNext(untilMs: number, signal: AbortSignal): Promise<void>;
  /** The state of the kind's change signal, stored on the cluster row for the Clusters page (plain JSON). */
  describeSignal?(): Record<string, unknown>;
  close(): Promise<void>;
};
