// The leader timeline's shapes: what the read model loads (changes, lane states) and what the
// subscription page draws (lanes of tenure segments, change markers, deployment bands). Times
// the chart draws are epoch milliseconds; times people read are ISO strings. Client-safe.

import type { ChangeCause, ChangeKind, HoldEnding } from "@/lib/poller/change";

export type { ChangeCause, ChangeKind, HoldEnding };

/** Kinds that end one tenure and start another. The others are markers only. */
export const HOLDER_KINDS: readonly ChangeKind[] = ["HOLDER_CHANGED", "HOLDER_LOST", "HOLDER_APPEARED", "HIDDEN_FLAP", "REPLAYED_FLAP"];

/** A change as the lane builder needs it (times in epoch ms: 20,000 of them are parsed once, not per use). */
export type TimelineChange = {
  partition: number;
  kind: ChangeKind;
  cause: ChangeCause;
  fromHolder: string | null;
  toHolder: string | null;
  /** The change happened in (oldSeenAt, newSeenAt]. */
  oldSeenAt: number | null;
  newSeenAt: number;
  isDuringGap: boolean;
  /** Locks: how the previous hold ended. */
  ending?: HoldEnding | null;
};

/** One partition's state as the lane builder needs it (times in epoch ms). */
export type LaneState = {
  /** The lane's number: a partition, or a lock's place in the list of a pattern's locks. */
  partition: number;
  /** The lane's name (a lock's key); default "p<partition>", or "topic". */
  label?: string;
  /** The holder at the end of the range: the `fromHolder` of the first holder change after it, else the current holder. */
  holderAtRangeEnd: string | null;
  firstSeenAt: number;
  lastObservedAt: number | null;
  staleSince: number | null;
  goneAt: number | null;
};

/**
 * held: one consumer holds it. none: nobody does. shared: Key_Shared, no single holder.
 * unobserved: Baton did not see it (before it was found, between two polls around a change,
 * while polls failed). busy: several short tenures merged by downsampling.
 */
export type SegmentKind = "held" | "none" | "shared" | "unobserved" | "busy";

export type Segment = {
  start: number;
  end: number;
  kind: SegmentKind;
  /** The holder (busy: the one that held longest inside it). */
  holder: string | null;
  /** busy: how many tenures were merged, and by whom. */
  tenures?: number;
  holders?: string[];
};

export type Lane = { partition: number; label: string; segments: Segment[] };

export type Marker = {
  at: number;
  partition: number;
  kind: ChangeKind;
  cause: ChangeCause;
  fromHolder: string | null;
  toHolder: string | null;
  isDuringGap: boolean;
  /** Locks: how the previous hold ended (absent for Pulsar). */
  ending?: HoldEnding | null;
  /** More than 1 when markers were bucketed: the changes this one stands for. */
  count: number;
};

export type DeploymentBand = { service: string; version: string; start: number; end: number; isInProgress: boolean };

export type Timeline = {
  from: string;
  to: string;
  lanes: Lane[];
  markers: Marker[];
  bands: DeploymentBand[];
  /** Every consumer named in the range or now, in legend order. */
  consumers: string[];
  changeCount: number;
  /** True when segments or markers were merged to stay within the drawing budget. */
  isDownsampled: boolean;
};
