// Who owned a violation's key when it happened, as the drill-down and the read API return it.
// Client-safe types.

import type { CannotComputeReason } from "@/lib/poller/contract/rule-result";

export type OwnerCannotComputeReason =
  | CannotComputeReason
  /** The event names no topic or subscription, or Baton watches no such subscription. */
  | "no-resource"
  /** Baton has no record of the ranges or leaders at the violation's time. */
  | "no-history"
  /** The topic's partition count changed within the window: the producer's routing is not known. */
  | "partition-count-changed";

/** A change of the key's owner within the window around a violation. */
export type OwnerChange = {
  from: string | null;
  to: string | null;
  /** The change happened in (changedAfter, changedAt]: the last poll that saw the old owner and the first that saw the new one. */
  changedAfter: string | null;
  changedAt: string;
  /** Key_Shared: the range that held the key's hash before the change; null for a leader change. */
  rangeBefore: [number, number] | null;
  /** Consumers that joined and left the subscription with the change (Key_Shared: the reason ranges moved). */
  joined: string[];
  left: string[];
};

export type ViolationOwner =
  | {
      isComputed: true;
      /** "key-shared": the key's hash in the split valid then; "failover": the partition's leader then. */
      rule: "key-shared" | "failover";
      /** The consumer that owned the key at the violation's time (null: a gap in the ranges, or no leader). */
      owner: string | null;
      /** Key_Shared: the sticky-key hash and the range holding it. */
      hash: number | null;
      range: [number, number] | null;
      /** The partition whose owner this is (-1 when not partitioned); `isPartitionRouted` when computed from the key. */
      partition: number;
      isPartitionRouted: boolean;
      /** The last change of owner within the window around the violation, or null: the owner was stable. */
      change: OwnerChange | null;
    }
  | { isComputed: false; reason: OwnerCannotComputeReason; detail: string };
