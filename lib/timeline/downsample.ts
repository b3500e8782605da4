// Keeping what the browser draws within a budget, without hiding that something happened:
// short tenures are merged into "busy" segments that say how many tenures and by whom, and
// markers are bucketed with a count. Pure and client-safe.

import type { ChangeKind, Lane, Marker, Segment, TimelineChange } from "@/lib/timeline/timeline-types";

/** At most this many segments over all lanes, and this many markers, per chart. */
export const MAX_SEGMENTS = 2_000;
export const MAX_MARKERS = 1_500;
/** However many lanes, each may keep at least this many segments. */
const MIN_SEGMENTS_PER_LANE = 40;

function mergeRun(run: Segment[]): Segment {
  if (run.length === 1) return run[0]!;
  const time = new Map<string, number>();
  let tenures = 0;
  for (const s of run) {
    if (s.kind === "busy") tenures += s.tenures ?? 1;
    else if (s.kind !== "unobserved") tenures++;
    for (const name of s.holders ?? (s.holder === null ? [] : [s.holder])) time.set(name, (time.get(name) ?? 0) + (s.end - s.start));
  }
  const holders = [...time.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
  return { start: run[0]!.start, end: run[run.length - 1]!.end, kind: "busy", holder: holders[0] ?? null, tenures, holders };
}

/**
 * Merges runs of consecutive segments shorter than w = (range / maxSegments) into busy
 * segments about w long (a run is cut where it would grow past w, so a busy week still shows
 * when it was busiest). Segments at least w long are kept as they are. Every output segment but
 * the last of each run spans at least w: never more than about 2 * maxSegments + 1.
 */
export function downsampleSegments(segments: Segment[], fromMs: number, toMs: number, maxSegments: number): Segment[] {
  if (segments.length <= maxSegments) return segments;
  const minDuration = (toMs - fromMs) / maxSegments;
  const out: Segment[] = [];
  let run: Segment[] = [];
  for (const segment of segments) {
    if (segment.end - segment.start < minDuration) {
      if (run.length > 0 && segment.end - run[0]!.start > minDuration) {
        out.push(mergeRun(run));
        run = [];
      }
      run.push(segment);
      continue;
    }
    if (run.length > 0) out.push(mergeRun(run));
    run = [];
    out.push(segment);
  }
  if (run.length > 0) out.push(mergeRun(run));
  return out;
}

/** Each lane's share of the segment budget. */
export function segmentBudgetPerLane(laneCount: number, maxSegments = MAX_SEGMENTS): number {
  return Math.max(MIN_SEGMENTS_PER_LANE, Math.floor(maxSegments / 2 / Math.max(1, laneCount)));
}

export function downsampleLanes(lanes: Lane[], fromMs: number, toMs: number, maxSegments = MAX_SEGMENTS): { lanes: Lane[]; isDownsampled: boolean } {
  const budget = segmentBudgetPerLane(lanes.length, maxSegments);
  let isDownsampled = false;
  const out = lanes.map((lane) => {
    const segments = downsampleSegments(lane.segments, fromMs, toMs, budget);
    if (segments !== lane.segments) isDownsampled = true;
    return { ...lane, segments };
  });
  return { lanes: out, isDownsampled };
}

/** Which change a bucket's marker shows: the most alarming kind in it. */
const KIND_PRIORITY: Record<ChangeKind, number> = {
  HOLDER_LOST: 7,
  HOLDER_CHANGED: 6,
  HIDDEN_FLAP: 5,
  REPLAYED_FLAP: 4,
  HOLDER_APPEARED: 3,
  RANGES_MOVED: 2,
  CONSUMERS_CHANGED: 1,
};

function toMarker(change: TimelineChange, count: number): Marker {
  return {
    at: change.newSeenAt,
    partition: change.partition,
    kind: change.kind,
    cause: change.cause,
    fromHolder: change.fromHolder,
    toHolder: change.toHolder,
    isDuringGap: change.isDuringGap,
    ...(change.ending ? { ending: change.ending } : {}),
    count,
  };
}

/**
 * One marker per change while they fit the budget; beyond it, one per (partition, time bucket),
 * placed at the bucket's first change, showing its most alarming kind and the count. Markers come
 * out in time order (then lane), whatever order the database handed the changes in.
 */
export function bucketMarkers(changes: TimelineChange[], fromMs: number, toMs: number, maxMarkers = MAX_MARKERS): { markers: Marker[]; isBucketed: boolean } {
  const byTimeThenLane = (a: { at: number; partition: number }, b: { at: number; partition: number }) => a.at - b.at || a.partition - b.partition;
  if (changes.length <= maxMarkers) return { markers: changes.map((c) => toMarker(c, 1)).sort(byTimeThenLane), isBucketed: false };
  const partitions = new Set(changes.map((c) => c.partition)).size;
  const bucketsPerLane = Math.max(1, Math.floor(maxMarkers / partitions));
  const width = Math.max(1, (toMs - fromMs) / bucketsPerLane);
  const buckets = new Map<string, { first: TimelineChange; shown: TimelineChange; count: number }>();
  for (const change of changes) {
    const at = change.newSeenAt;
    const key = `${change.partition}:${Math.min(bucketsPerLane - 1, Math.max(0, Math.floor((at - fromMs) / width)))}`;
    const bucket = buckets.get(key);
    if (!bucket) {
      buckets.set(key, { first: change, shown: change, count: 1 });
      continue;
    }
    bucket.count++;
    if (change.newSeenAt < bucket.first.newSeenAt) bucket.first = change;
    if (KIND_PRIORITY[change.kind] > KIND_PRIORITY[bucket.shown.kind]) bucket.shown = change;
  }
  const markers = [...buckets.values()].map(({ first, shown, count }) => ({ ...toMarker(shown, count), at: first.newSeenAt }));
  markers.sort(byTimeThenLane);
  return { markers, isBucketed: true };
}
