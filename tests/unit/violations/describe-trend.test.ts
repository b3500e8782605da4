import { describe, expect, it } from "vitest";

import { describeTrend } from "@/lib/violations/describe-trend";
import type { TimelineBucket } from "@/lib/violations/violation-types";

const HOUR = 3_600_000;
const START = Date.parse("2026-11-22T00:00:00Z");

function buckets(outside: (number | null)[]): TimelineBucket[] {
  return outside.map((value, i) => ({
    start: new Date(START + i * HOUR).toISOString(),
    end: new Date(START + (i + 1) * HOUR).toISOString(),
    isPartial: false,
    total: value === null ? null : { violations: value + 1, inside: 1, outside: value },
    increments: value === null ? null : 100,
    byService: {},
  }));
}

describe("describeTrend", () => {
  it.each([
    ["rising", [0, 1, 0, 5, 4, 6], "rising"],
    ["falling", [6, 5, 4, 0, 1, 0], "falling"],
    ["steady", [2, 2, 2, 2, 3, 1], "steady"],
    ["none", [0, 0, 0, 0], "none"],
  ])("calls %s outside violations what they are", (_label, values, direction) => {
    expect(describeTrend(buckets(values)).direction).toBe(direction);
  });

  it("compares rates over observed time only: unobserved buckets are not quiet ones", () => {
    // Two observed hours with 2 each before, four observed with 1 each after: the rate halves.
    const trend = describeTrend(buckets([2, 2, null, 1, 1, 1]));
    expect(trend.earlier).toEqual({ outside: 4, observedMs: 2 * HOUR });
    expect(trend.later).toEqual({ outside: 3, observedMs: 3 * HOUR });
    expect(trend.direction).toBe("falling");
    expect(trend.splitAt).toBe(new Date(START + 3 * HOUR).toISOString());
  });

  it("says nothing when a half was never observed, or there are no buckets (an empty range)", () => {
    expect(describeTrend(buckets([null, null, 3, 4])).direction).toBe("unobserved");
    expect(describeTrend([]).direction).toBe("unobserved");
    expect(describeTrend(buckets([7])).direction).toBe("unobserved");
  });
});
