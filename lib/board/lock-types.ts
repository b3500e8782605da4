// The locks board's shapes: what the read model hands the lock rules (snapshots) and what the
// board, the lock page and the read API get back (plain JSON: ISO strings, numbers). Client-safe.

import type { BoardThresholds, ClusterStatus, Health, HealthFlag } from "@/lib/board/board-types";
import type { ChangeKind, HoldEnding } from "@/lib/poller/change";
import type { HoldStats } from "@/lib/poller/hold-state";
import type { NextHolder } from "@/lib/poller/next-holder";
import type { LockResourceKind, LockSourceKind } from "@/lib/sources/kind-descriptions";

// The lock kinds derive from the one list of kinds (lib/sources/kind-descriptions.ts).
export { LOCK_RESOURCE_KINDS, LOCK_SOURCE_KINDS, type LockResourceKind, type LockSourceKind } from "@/lib/sources/kind-descriptions";

/** The newest expiry while held within the last hour: who held it, since when, when its TTL ended. */
export type ExpirySnapshot = {
  at: number;
  fromHolder: string | null;
  toHolder: string | null;
  heldSince: string | null;
  expiresAtBefore: string | null;
};

/** One lock as the read model loads it: what the lock rules judge. Times are epoch milliseconds. */
export type LockSnapshot = {
  cluster: string;
  key: string;
  pattern: string;
  /** The pattern is a leader election: nobody holding it is an outage. */
  isMustBeHeld: boolean;
  holder: string | null;
  holderSince: number | null;
  expiresAt: number | null;
  ttlMs: number | null;
  waiters: string[];
  isSplit: boolean;
  stats: HoldStats;
  lastObservedAt: number | null;
  staleSince: number | null;
  lastError: string | null;
  goneAt: number | null;
  lastChangeAt: number | null;
  /** Holder changes (changed, lost, appeared, hidden flap) inside the flapping window. */
  changesInWindow: number;
  lastExpiry: ExpirySnapshot | null;
  /** Why the kind's own records say the holder is stuck (its description's describeStuckHolder), or null. */
  stuckWords: string | null;
};

/** A finding that has ended (the lock recovered), told in words with when it happened. */
export type EndedFinding = {
  rule: "expired-while-held" | "lock-churn";
  /** "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b 1 s later". */
  text: string;
  /** When it happened, where it was one event (null for churn, which spans a window). */
  startedAt: string | null;
  endedAt: string;
};

/** The newest holder change of a lock, with how the previous hold ended. */
export type LockLastChange = { kind: ChangeKind; ending: HoldEnding | null; fromHolder: string | null; toHolder: string | null; at: string };

export type LockRow = {
  /** cluster|key: unique on the board. */
  id: string;
  cluster: string;
  sourceKind: LockSourceKind;
  resourceKind: LockResourceKind;
  key: string;
  pattern: string;
  /** The configured layout of its pattern ("token", "redisson"), when the cluster's scope names it. */
  layout: string | null;
  isMustBeHeld: boolean;
  /** The current holder; when the row is stale, the last known one (label it so). */
  holder: string | null;
  holderToken: string | null;
  holderSince: string | null;
  /** When the hold ends unless renewed: TTL left is counted from it in the browser. */
  expiresAt: string | null;
  ttlMs: number | null;
  /** Queued contenders, in queue order. */
  waiters: string[];
  isSplit: boolean;
  /** The source kind's own details (reentrancy count, per-master tokens...). */
  details: Record<string, unknown>;
  stats: HoldStats;
  firstSeenAt: string;
  lastObservedAt: string | null;
  staleSince: string | null;
  goneAt: string | null;
  lastChange: LockLastChange | null;
  changesInWindow: number;
  /** Changes that ended a hold by expiry in the last hour. */
  expiriesInHour: number;
  /** Who takes over if the holder lets go: the queue's head, or "no queue" (the kind's description: `predictNextHolder`). */
  next: NextHolder;
  health: Health;
  flags: HealthFlag[];
  /** Findings of the last hour that have ended: the lock is healthy again, and says what happened. */
  ended: EndedFinding[];
};

export type LockClusterStatus = ClusterStatus & { sourceKind: LockSourceKind };

export type LocksBoard = {
  generatedAt: string;
  thresholds: BoardThresholds;
  /** The configured clusters that hold locks (empty: no lock source is configured). */
  clusters: LockClusterStatus[];
  locks: LockRow[];
};
