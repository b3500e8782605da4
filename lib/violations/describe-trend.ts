// The trend of outside-deployment violations: the later half of the range against the earlier
// half, as rates per observed hour (buckets nobody reported in do not count as quiet time).
// Client-safe and pure.

import type { TimelineBucket, ViolationTrend } from "@/lib/violations/violation-types";

/** A rate this much higher (or lower) is a change; closer is steady. */
export const TREND_RATIO = 1.25;

export function describeTrend(buckets: readonly TimelineBucket[]): ViolationTrend {
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const empty = { outside: 0, observedMs: 0 };
  if (!first || !last) return { direction: "unobserved", splitAt: new Date(0).toISOString(), earlier: { ...empty }, later: { ...empty } };

  // Split at the bucket boundary nearest the middle of the covered time.
  const middle = (Date.parse(first.start) + Date.parse(last.end)) / 2;
  let splitIndex = 1;
  for (let i = 1; i < buckets.length; i++) {
    if (Math.abs(Date.parse(buckets[i]!.start) - middle) < Math.abs(Date.parse(buckets[splitIndex]!.start) - middle)) splitIndex = i;
  }
  const earlier = { ...empty };
  const later = { ...empty };
  buckets.forEach((bucket, index) => {
    if (bucket.total === null) return;
    const half = index < splitIndex ? earlier : later;
    half.outside += bucket.total.outside;
    half.observedMs += Date.parse(bucket.end) - Date.parse(bucket.start);
  });
  const splitAt = buckets[splitIndex]?.start ?? last.end;
  if (earlier.observedMs === 0 || later.observedMs === 0) return { direction: "unobserved", splitAt, earlier, later };
  if (earlier.outside === 0 && later.outside === 0) return { direction: "none", splitAt, earlier, later };
  const earlierRate = earlier.outside / earlier.observedMs;
  const laterRate = later.outside / later.observedMs;
  const direction = laterRate > earlierRate * TREND_RATIO ? "rising" : laterRate * TREND_RATIO < earlierRate ? "falling" : "steady";
  return { direction, splitAt, earlier, later };
}
