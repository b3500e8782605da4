// The chart's time buckets: a size chosen from the range's length, boundaries on the reader's
// wall clock (a 3-hour bucket starts at 00:00, 03:00, ... where the reader lives, also in
// Kathmandu's +05:45 and across daylight-saving changes). Client-safe and pure.

import { offsetSpans, type OffsetSpan } from "@/lib/violations/time-zone";

export const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Bucket sizes, each a whole number of minutes that divides a day. */
export const BUCKET_SIZES_MS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((minutes) => minutes * MINUTE_MS);

/** At most this many bars: about one per 5 pixels on a laptop screen. */
export const MAX_BUCKETS = 240;

/** The smallest bucket size that keeps the range within MAX_BUCKETS bars (1 h: 1 min; 30 d: 3 h). */
export function chooseBucketMs(rangeMs: number): number {
  for (const size of BUCKET_SIZES_MS) if (Math.ceil(rangeMs / size) <= MAX_BUCKETS) return size;
  return DAY_MS;
}

export const floorMinute = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
const ceilMinute = (ms: number): number => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/**
 * The rollup's resolution is a minute: a range covers every minute it overlaps, so
 * [10:00:30, 11:00:10) reads the minutes 10:00 to 11:00 inclusive.
 */
export function minuteWindow(fromMs: number, toMs: number): { startMs: number; endMs: number } {
  return { startMs: floorMinute(fromMs), endMs: ceilMinute(toMs) };
}

export type TimeBucket = {
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, exclusive. */
  end: number;
  /** Shorter than its wall-clock slot (cut by the range's ends), or not over yet. */
  isPartial: boolean;
};

/** Which wall-clock bucket an instant falls in, given the offset that applies at it. */
function localIndex(atMs: number, offsetMs: number, bucketMs: number): number {
  return Math.floor((atMs + offsetMs) / bucketMs);
}

/**
 * Every boundary in [fromMs, toMs): within a span of constant offset, the instants whose local
 * time is a multiple of the bucket size; at an offset change, the change itself when the local
 * bucket differs across it. O(buckets), not O(minutes).
 */
function boundariesBetween(spans: readonly OffsetSpan[], fromMs: number, toMs: number, bucketMs: number): number[] {
  const out: number[] = [];
  spans.forEach((span, k) => {
    const spanEnd = spans[k + 1]?.fromMs ?? Number.POSITIVE_INFINITY;
    const previous = spans[k - 1];
    if (previous && localIndex(span.fromMs, span.offsetMs, bucketMs) !== localIndex(span.fromMs - MINUTE_MS, previous.offsetMs, bucketMs)) {
      if (span.fromMs >= fromMs && span.fromMs < toMs) out.push(span.fromMs);
    }
    const lowest = Math.max(span.fromMs, fromMs);
    let at = Math.ceil((lowest + span.offsetMs) / bucketMs) * bucketMs - span.offsetMs;
    if (previous && at === span.fromMs) at += bucketMs; // decided above, by the change rule
    for (; at < Math.min(spanEnd, toMs); at += bucketMs) out.push(at);
  });
  return out.sort((a, b) => a - b);
}

/**
 * Buckets covering the minutes of [fromMs, toMs). A boundary is an instant where the local
 * wall-clock bucket changes: so a bucket whose local start is skipped by a daylight-saving jump
 * starts at the jump, and a repeated local hour stays inside one (longer) bucket. The first and
 * last buckets are cut to the range.
 */
export function buildBuckets(input: { fromMs: number; toMs: number; bucketMs: number; timeZone: string; nowMs: number }): TimeBucket[] {
  const { bucketMs, nowMs } = input;
  const { startMs, endMs } = minuteWindow(input.fromMs, input.toMs);
  if (endMs <= startMs) return [];
  // A bucket (plus a day's slack for a jump) on each side finds the boundaries around the range.
  const scanFrom = startMs - bucketMs - DAY_MS;
  const scanTo = endMs + bucketMs + DAY_MS;
  const all = boundariesBetween(offsetSpans(input.timeZone, scanFrom, scanTo), scanFrom, scanTo, bucketMs);
  let firstIndex = 0;
  while (firstIndex + 1 < all.length && all[firstIndex + 1]! <= startMs) firstIndex++;
  const buckets: TimeBucket[] = [];
  for (let i = firstIndex; i + 1 < all.length && all[i]! < endMs; i++) {
    const slotStart = all[i]!;
    const slotEnd = all[i + 1]!;
    const start = Math.max(slotStart, startMs);
    const end = Math.min(slotEnd, endMs);
    if (end <= start) continue;
    buckets.push({ start, end, isPartial: start > slotStart || end < slotEnd || end > nowMs });
  }
  return buckets;
}

/** The index of the bucket holding an instant, or -1 (binary search over sorted buckets). */
export function bucketIndexOf(buckets: readonly TimeBucket[], atMs: number): number {
  let low = 0;
  let high = buckets.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const bucket = buckets[middle]!;
    if (atMs < bucket.start) high = middle - 1;
    else if (atMs >= bucket.end) low = middle + 1;
    else return middle;
  }
  return -1;
}
