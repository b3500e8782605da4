// Increments (the event rate) per chart bucket, from binned rollup sums. Client-safe and pure.

import { bucketIndexOf, type TimeBucket } from "@/lib/violations/time-buckets";

export type BinnedIncrements = { binStart: number; spanStart: number; increments: number };

/**
 * Each bucket's increments, or null where no row says anything was reported (a silent reporter
 * is a gap, a reporter with no traffic a measured value). Bins are placed as assignBuckets
 * places violation rows.
 */
export function incrementsPerBucket(rows: readonly BinnedIncrements[], buckets: readonly TimeBucket[]): (number | null)[] {
  const out: (number | null)[] = buckets.map(() => null);
  const firstStart = buckets[0]?.start ?? 0;
  for (const row of rows) {
    const bucket = bucketIndexOf(buckets, Math.max(row.binStart, row.spanStart, firstStart));
    if (bucket >= 0) out[bucket] = (out[bucket] ?? 0) + row.increments;
  }
  return out;
}
