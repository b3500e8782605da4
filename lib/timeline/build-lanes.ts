// Tenure segments per partition from the holder changes of a range. Pure and client-safe.
//
// A change happened somewhere in (oldSeenAt, newSeenAt]: the old tenure ends at oldSeenAt (the
// last poll that saw it), the new one starts at newSeenAt (the first poll that saw it), and the
// interval between is drawn as unobserved rather than guessed. A hidden flap (same holder at
// both polls, new connection) ends one tenure and starts another of the same consumer.

import { HOLDER_KINDS, type Lane, type LaneState, type Segment, type TimelineChange } from "@/lib/timeline/timeline-types";

export type BuildLanesInput = {
  fromMs: number;
  toMs: number;
  nowMs: number;
  /** Key_Shared has no single holder: its lanes read "shared", not "nobody". */
  isKeyShared: boolean;
  lanes: LaneState[];
  /** The range's changes, any order, any kind (only holder kinds shape the lanes). */
  changes: TimelineChange[];
};

const HOLDER_KIND_SET = new Set<string>(HOLDER_KINDS);

export function laneLabel(partition: number): string {
  return partition < 0 ? "topic" : `p${partition}`;
}

function pushSegment(segments: Segment[], start: number, end: number, holder: string | null, kind: Segment["kind"]): void {
  if (!(end > start)) return;
  const last = segments[segments.length - 1];
  // Touching segments of the same holder and kind are one tenure (a flap is split by the unobserved gap between).
  if (last && last.end === start && last.kind === kind && last.holder === holder) {
    last.end = end;
    return;
  }
  segments.push({ start, end, kind, holder });
}

function buildLane(state: LaneState, changes: TimelineChange[], input: BuildLanesInput): Lane {
  const heldKind = (holder: string | null): Segment["kind"] => (holder !== null ? "held" : input.isKeyShared ? "shared" : "none");
  const segments: Segment[] = [];
  // A change is itself an observation: never start later than the first one (it guards against
  // a firstSeenAt reset by a re-created row).
  const firstChange = changes[0];
  const firstSeen = Math.min(state.firstSeenAt, firstChange ? (firstChange.oldSeenAt ?? firstChange.newSeenAt) : Number.POSITIVE_INFINITY);
  const start = Math.max(input.fromMs, firstSeen);
  let end = Math.min(input.toMs, input.nowMs);
  if (state.goneAt !== null) end = Math.min(end, state.goneAt);
  // While polls fail, what Baton last saw holds only until the last good poll.
  const knownUntil = state.staleSince !== null && state.lastObservedAt !== null ? Math.min(end, state.lastObservedAt) : end;

  pushSegment(segments, input.fromMs, Math.min(start, end), null, "unobserved");
  let holder = firstChange ? (firstChange.kind === "HOLDER_APPEARED" ? null : firstChange.fromHolder) : state.holderAtRangeEnd;
  let cursor = start;
  for (const change of changes) {
    const seenAt = change.newSeenAt;
    const lastSeenOld = change.oldSeenAt ?? seenAt;
    pushSegment(segments, cursor, Math.min(Math.max(lastSeenOld, cursor), knownUntil), holder, heldKind(holder));
    pushSegment(segments, Math.max(lastSeenOld, cursor), Math.min(seenAt, knownUntil), null, "unobserved");
    cursor = Math.max(cursor, seenAt);
    holder = change.kind === "HOLDER_LOST" ? null : change.toHolder;
  }
  pushSegment(segments, cursor, knownUntil, holder, heldKind(holder));
  pushSegment(segments, Math.max(cursor, knownUntil), end, null, "unobserved");
  return { partition: state.partition, label: state.label ?? laneLabel(state.partition), segments };
}

/** One lane per partition (in partition order), each a gapless run of segments over the range. */
export function buildLanes(input: BuildLanesInput): Lane[] {
  const byPartition = new Map<number, TimelineChange[]>();
  for (const change of input.changes) {
    if (!HOLDER_KIND_SET.has(change.kind)) continue;
    let list = byPartition.get(change.partition);
    if (!list) byPartition.set(change.partition, (list = []));
    list.push(change);
  }
  for (const list of byPartition.values()) list.sort((a, b) => a.newSeenAt - b.newSeenAt);
  return [...input.lanes].sort((a, b) => a.partition - b.partition).map((state) => buildLane(state, byPartition.get(state.partition) ?? [], input));
}
