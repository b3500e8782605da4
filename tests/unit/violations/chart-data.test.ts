import { describe, expect, it } from "vitest";

import { bandsOverlapping, barSegments, maxViolations, pickTicks, toBandSpans, toChartPoints, unobservedSpans, withCauses } from "@/lib/violations/chart-data";
import { CAUSE_BAR_COLOR } from "@/lib/violations/violation-colors";
import type { DeploymentBand, TimelineBucket } from "@/lib/violations/violation-types";

const MINUTE = 60_000;
const START = Date.parse("2026-11-22T10:00:00Z");
const iso = (minutes: number) => new Date(START + minutes * MINUTE).toISOString();

const buckets: TimelineBucket[] = [
  {
    start: iso(0),
    end: iso(10),
    isPartial: false,
    total: { violations: 3, inside: 1, outside: 2 },
    byService: { a: { violations: 3, inside: 1, outside: 2 }, b: { violations: 0, inside: 0, outside: 0 } },
    increments: 4_200,
  },
  { start: iso(10), end: iso(20), isPartial: false, total: null, byService: {}, increments: null },
  { start: iso(20), end: iso(30), isPartial: false, total: null, byService: {}, increments: null },
  {
    start: iso(30),
    end: iso(35),
    isPartial: true,
    total: { violations: 0, inside: 0, outside: 0 },
    byService: { b: { violations: 0, inside: 0, outside: 0 } },
    increments: 0,
  },
];

const band = (id: string, service: string, start: number, finish: number | null, windowEnd: number): DeploymentBand => ({
  id,
  service,
  version: "1",
  environment: "production",
  startedAt: iso(start),
  finishedAt: finish === null ? null : iso(finish),
  windowEnd: iso(windowEnd),
  link: null,
});

describe("chart data", () => {
  it("keeps unobserved buckets null, and a service's bucket null where it reported nothing", () => {
    const all = toChartPoints(buckets);
    expect(all.map((p) => p.counts?.violations ?? null)).toEqual([3, null, null, 0]);
    expect(all[0]!.mid).toBe(START + 5 * MINUTE);
    const onlyA = toChartPoints(buckets, "a");
    expect(onlyA.map((p) => p.counts?.violations ?? null)).toEqual([3, null, null, null]);
    expect(toChartPoints(buckets, "b").map((p) => p.counts?.violations ?? null)).toEqual([0, null, null, 0]);
  });

  it("carries the increments reported (events and counts) for the whole chart, not for one service of a split chart", () => {
    expect(toChartPoints(buckets).map((p) => p.increments)).toEqual([4_200, null, null, 0]);
    expect(toChartPoints(buckets, "a").map((p) => p.increments)).toEqual([null, null, null, null]);
  });

  it("merges consecutive unobserved buckets into one hatched span", () => {
    expect(unobservedSpans(toChartPoints(buckets))).toEqual([{ start: START + 10 * MINUTE, end: START + 30 * MINUTE }]);
  });

  it("cuts deployment bands to the chart, shows the grace period, drops those outside", () => {
    const bands = [band("1", "a", -5, 5, 11), band("2", "a", 30, null, 120), band("3", "b", -60, -50, -44), band("4", "b", 12, 14, 20)];
    const now = START + 33 * MINUTE;
    expect(toBandSpans(bands, START, START + 35 * MINUTE, now)).toEqual([
      { id: "1", service: "a", start: START, activeEnd: START + 5 * MINUTE, windowEnd: START + 11 * MINUTE, isInProgress: false },
      { id: "2", service: "a", start: START + 30 * MINUTE, activeEnd: now, windowEnd: START + 35 * MINUTE, isInProgress: true },
      { id: "4", service: "b", start: START + 12 * MINUTE, activeEnd: START + 14 * MINUTE, windowEnd: START + 20 * MINUTE, isInProgress: false },
    ]);
    expect(toBandSpans(bands, START, START + 35 * MINUTE, now, "b").map((b) => b.id)).toEqual(["4"]);
    expect(bandsOverlapping(bands, START + 10 * MINUTE, START + 20 * MINUTE).map((b) => b.id)).toEqual(["1", "4"]);
  });

  it("stacks one segment per cause, the causes to act on at the bottom, or services in order, leaving out empty segments", () => {
    const colors = {
      causes: {
        "two-hands": "crimson",
        rollout: "amber",
        "holder-stalled": "orange",
        "worker-stalled": "pink",
        "failover-overlap": "violet",
        unexplained: "red",
        unclassified: "grey",
      },
      services: { a: "blue", b: "green" },
    };
    // Before the causes are known, the violations outside rollouts are unclassified.
    const [bare] = toChartPoints(buckets);
    expect(barSegments(bare!, "classification", [], colors)).toEqual([
      { label: "rollout", value: 1, color: "amber", y0: 0, y1: 1 },
      { label: "unclassified", value: 2, color: "grey", y0: 1, y1: 3 },
    ]);
    const [point] = withCauses(toChartPoints(buckets), [
      { observedAt: iso(1), cause: "worker-stalled", service: "a" },
      { observedAt: iso(2), cause: "unexplained", service: "a" },
      { observedAt: iso(3), cause: "rollout", service: "a" },
    ]);
    expect(barSegments(point!, "classification", [], colors)).toEqual([
      { label: "unexplained", value: 1, color: "red", y0: 0, y1: 1 },
      { label: "worker-stalled", value: 1, color: "pink", y0: 1, y1: 2 },
      { label: "rollout", value: 1, color: "amber", y0: 2, y1: 3 },
    ]);
    expect(barSegments(point!, "services", ["b", "a"], colors)).toEqual([{ label: "a", value: 3, color: "blue", y0: 0, y1: 3 }]);
  });

  it("splits each bucket's violations outside rollouts by the classified ones in it; the rest is unclassified, the totals unchanged", () => {
    const points = withCauses(toChartPoints(buckets), [
      { observedAt: iso(4), cause: "holder-stalled", service: "a" },
      // Outside the bucket, another service's, or more than the bucket counts: not counted in it.
      { observedAt: iso(12), cause: "unexplained", service: "a" },
      { observedAt: iso(5), cause: "failover-overlap", service: "b" },
    ]);
    expect(points[0]!.causes).toEqual({
      "two-hands": 0,
      rollout: 1,
      "holder-stalled": 1,
      "worker-stalled": 0,
      "failover-overlap": 1,
      unexplained: 0,
      unclassified: 0,
    });
    expect(points[1]!.causes).toBeNull();
    expect(withCauses(toChartPoints(buckets, "a"), [{ observedAt: iso(5), cause: "failover-overlap", service: "b" }], "a")[0]!.causes).toMatchObject({
      "failover-overlap": 0,
      unclassified: 2,
    });
    const crowded = withCauses(
      toChartPoints(buckets),
      [1, 2, 3].map((m) => ({ observedAt: iso(m), cause: "unexplained" as const, service: "a" })),
    );
    expect(crowded[0]!.causes).toMatchObject({ unexplained: 2, unclassified: 0, rollout: 1 });
  });

  it("has a colour for every segment the classification chart draws", () => {
    for (const part of ["two-hands", "rollout", "holder-stalled", "worker-stalled", "failover-overlap", "unexplained", "unclassified"] as const)
      expect(CAUSE_BAR_COLOR[part]).toMatch(/^#[0-9a-f]{6}$/);
    expect(new Set(Object.values(CAUSE_BAR_COLOR)).size).toBe(7);
  });

  it("finds the tallest bucket and picks at most the asked number of ticks", () => {
    expect(maxViolations(toChartPoints(buckets))).toBe(3);
    expect(maxViolations([])).toBe(1);
    expect(pickTicks(toChartPoints(buckets), 2)).toEqual([START, START + 20 * MINUTE]);
  });
});
