import { describe, expect, it } from "vitest";

import { incrementsPerBucket } from "@/lib/violations/increments-per-bucket";
import { buildBuckets } from "@/lib/violations/time-buckets";

const HOUR = 3_600_000;

describe("incrementsPerBucket", () => {
  it("sums the bins of each bucket and leaves buckets without rows null (unobserved), zero sums zero", () => {
    const fromMs = Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR;
    const buckets = buildBuckets({ fromMs, toMs: fromMs + 4 * HOUR, bucketMs: HOUR, timeZone: "UTC", nowMs: fromMs + 5 * HOUR });
    expect(buckets).toHaveLength(4);
    const rows = [
      { binStart: fromMs, spanStart: fromMs, increments: 400 },
      { binStart: fromMs, spanStart: fromMs, increments: 20 },
      { binStart: fromMs + 2 * HOUR, spanStart: fromMs, increments: 0 },
      // Outside the buckets: ignored.
      { binStart: fromMs + 9 * HOUR, spanStart: fromMs, increments: 5 },
    ];
    expect(incrementsPerBucket(rows, buckets)).toEqual([420, null, 0, null]);
  });
});
