import { describe, expect, it } from "vitest";

import { bandsOverlapping, barSegments, maxViolations, pickTicks, toBandSpans, toChartPoints, unobservedSpans } from "@/lib/violations/chart-data";
import type { DeploymentBand, TimelineBucket } from "@/lib/violations/violation-types";

const MINUTE = 60_000;
const START = Date.parse("2026-11-22T10:00:00Z");
const iso = (minutes: number) => new Date(START + minutes * MINUTE).toISOString();

const buckets: TimelineBucket[] = [
  { start: iso(0), end: iso(10), isPartial: false, total: { violations: 3, inside: 1, outside: 2 }, byService: { a: { violations: 3, inside: 1, outside: 2 }, b: { violations: 0, inside: 0, outside: 0 } }, increments: 4_200 },
  { start: iso(10), end: iso(20), isPartial: false, total: null, byService: {}, increments: null },
  { start: iso(20), end: iso(30), isPartial: false, total: null, byService: {}, increments: null },
  { start: iso(30), end: iso(35), isPartial: true, total: { violations: 0, inside: 0, outside: 0 }, byService: { b: { violations: 0, inside: 0, outside: 0 } }, increments: 0 },
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

  it("stacks outside under inside, or services in order, leaving out empty segments", () => {
    const [point] = toChartPoints(buckets);
    const colors = { outside: "red", inside: "amber", services: { a: "blue", b: "green" } };
    expect(barSegments(point!, "classification", [], colors)).toEqual([
      { label: "outside deployments", value: 2, color: "red", y0: 0, y1: 2 },
      { label: "inside deployments", value: 1, color: "amber", y0: 2, y1: 3 },
    ]);
    expect(barSegments(point!, "services", ["b", "a"], colors)).toEqual([{ label: "a", value: 3, color: "blue", y0: 0, y1: 3 }]);
  });

  it("finds the tallest bucket and picks at most the asked number of ticks", () => {
    expect(maxViolations(toChartPoints(buckets))).toBe(3);
    expect(maxViolations([])).toBe(1);
    expect(pickTicks(toChartPoints(buckets), 2)).toEqual([START, START + 20 * MINUTE]);
  });
});
