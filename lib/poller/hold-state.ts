// What Baton keeps of a lock between polls (and in held_resource), for every lock-like source
// kind. Client-safe types.

import type { DetectedChange, HoldEnding } from "@/lib/poller/change";
import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

export type { HoldEnding };

/** Per-tenure figures that the renewal-risk and stuck-holder rules read. */
export type HoldStats = {
  /** The largest TTL seen during the current hold: what "close to zero" is measured against. */
  tenureMaxTtlMs: number | null;
  /** How many observations of the current hold found less than a fifth of that TTL left. */
  nearExpiryCount: number;
  /** The longest hold that has ended so far (ms), over every holder: what "usual" means for this lock. */
  longestHoldMs: number;
};

export type HoldState = Omit<HoldObservation, "observedAt" | "previousEnding" | "previousHolder" | "concurrentHolds"> & {
  holderSince: string | null;
  lastObservedAt: string | null;
  staleSince: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  goneAt: string | null;
  lastChangeAt: string | null;
  stats: HoldStats;
};

/** A lock's holder change always says how the previous hold ended (null: it did not end, or cannot be told). */
export type HoldChange = DetectedChange & { ending: HoldEnding | null };

export const NO_HOLD_STATS: HoldStats = { tenureMaxTtlMs: null, nearExpiryCount: 0, longestHoldMs: 0 };
