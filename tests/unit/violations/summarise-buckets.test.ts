import { describe, expect, it } from "vitest";

import { assignBuckets, missingObservations, summariseBuckets, type ClassifiedRow } from "@/lib/violations/summarise-buckets";
import type { TimeBucket } from "@/lib/violations/time-buckets";

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const buckets: TimeBucket[] = [0, 1, 2].map((i) => ({
  start: at("2026-11-22T00:00:00Z") + i * HOUR,
  end: at("2026-11-22T00:00:00Z") + (i + 1) * HOUR,
  isPartial: false,
}));
const row = (bucket: number, service: string, violations: number, inside: number, subscription = "sub"): ClassifiedRow => ({
  bucket,
  service,
  subscription,
  violations,
  inside,
});

describe("assignBuckets", () => {
  it("places a bin by its start, or by its span's start when the bin straddles a daylight-saving change", () => {
    const placed = assignBuckets(
      [
        { binStart: at("2026-11-22T01:00:00Z"), spanStart: at("2026-11-22T00:00:00Z"), service: "a", subscription: "", violations: 2, inside: 1 },
        // Binned from an origin an hour off (after a change at 02:00): its rows start at the span.
        { binStart: at("2026-11-22T01:30:00Z"), spanStart: at("2026-11-22T02:00:00Z"), service: "a", subscription: "", violations: 1, inside: 0 },
        // A bin that starts before the (cut) first bucket holds rows from the range's start on.
        { binStart: at("2026-11-21T23:00:00Z"), spanStart: at("2026-11-21T23:00:00Z"), service: "a", subscription: "", violations: 1, inside: 0 },
        { binStart: at("2026-11-22T03:00:00Z"), spanStart: at("2026-11-22T02:00:00Z"), service: "a", subscription: "", violations: 1, inside: 0 },
      ],
      buckets,
    );
    expect(placed.map((p) => p.bucket)).toEqual([1, 2, 0]);
  });
});

describe("missingObservations", () => {
  it("asks about buckets without rows, and services without a row in a bucket", () => {
    expect(missingObservations(3, [row(0, "a", 1, 0), row(0, "b", 1, 1), row(2, "a", 3, 0)])).toEqual([
      { bucket: 1, service: null },
      { bucket: 1, service: "a" },
      { bucket: 1, service: "b" },
      { bucket: 2, service: "b" },
    ]);
  });

  it("asks about every bucket when there is no violation at all", () => {
    expect(missingObservations(2, [])).toEqual([
      { bucket: 0, service: null },
      { bucket: 1, service: null },
    ]);
  });
});

describe("summariseBuckets", () => {
  it("keeps unobserved buckets null and observed ones without violations at zero", () => {
    const summary = summariseBuckets(
      buckets,
      [row(0, "a", 3, 1), row(0, "b", 2, 2, "other")],
      [
        { bucket: 1, service: null },
        { bucket: 1, service: "a" },
      ],
    );
    expect(summary.buckets.map((b) => b.total)).toEqual([{ violations: 5, inside: 3, outside: 2 }, { violations: 0, inside: 0, outside: 0 }, null]);
    expect(summary.buckets[1]!.byService).toEqual({ a: { violations: 0, inside: 0, outside: 0 } });
    expect(summary.buckets[2]!.byService).toEqual({});
    expect(summary.totals).toEqual({ violations: 5, inside: 3, outside: 2 });
  });

  it("ranks services and subscriptions by violations, or by those outside deployments", () => {
    const rows = [row(0, "a", 10, 9), row(1, "b", 4, 0), row(2, "a", 1, 1, "other")];
    const byViolations = summariseBuckets(buckets, rows, []);
    expect(byViolations.services.map((s) => [s.name, s.violations, s.outside])).toEqual([
      ["a", 11, 1],
      ["b", 4, 4],
    ]);
    expect(byViolations.subscriptions.map((s) => `${s.service}/${s.subscription}`)).toEqual(["a/sub", "b/sub", "a/other"]);
    expect(summariseBuckets(buckets, rows, [], "outside").services.map((s) => s.name)).toEqual(["b", "a"]);
  });

  it("writes bucket times as ISO strings with the partial flag", () => {
    const summary = summariseBuckets([{ ...buckets[0]!, isPartial: true }], [], []);
    expect(summary.buckets).toEqual([
      { start: "2026-11-22T00:00:00.000Z", end: "2026-11-22T01:00:00.000Z", isPartial: true, total: null, byService: {}, increments: null },
    ]);
  });
});
