import { describe, expect, it } from "vitest";

import { bucketMarkers, downsampleLanes, downsampleSegments, segmentBudgetPerLane } from "@/lib/timeline/downsample";
import type { Segment, TimelineChange } from "@/lib/timeline/timeline-types";

const held = (start: number, end: number, holder: string): Segment => ({ start, end, kind: "held", holder });

describe("segment downsampling", () => {
  it("keeps segments as they are within the budget", () => {
    const segments = [held(0, 10, "a"), held(10, 20, "b")];
    expect(downsampleSegments(segments, 0, 20, 10)).toBe(segments);
  });

  it("merges runs of short tenures into busy segments that say how many and by whom, keeping long ones", () => {
    const flaps = Array.from({ length: 20 }, (_, i) => held(100 + i * 5, 105 + i * 5, i % 3 === 0 ? "a" : "b"));
    const segments = [held(0, 100, "a"), ...flaps, held(200, 1000, "c")];
    const out = downsampleSegments(segments, 0, 1000, 10);
    expect(out).toEqual([held(0, 100, "a"), { start: 100, end: 200, kind: "busy", holder: "b", tenures: 20, holders: ["b", "a"] }, held(200, 1000, "c")]);
  });

  it("cuts a long busy stretch into busy segments about one budget slot wide", () => {
    const flaps = Array.from({ length: 1_000 }, (_, i) => held(i * 10, i * 10 + 10, i % 2 ? "a" : "b"));
    const out = downsampleSegments(flaps, 0, 10_000, 10);
    expect(out.length).toBeGreaterThanOrEqual(9);
    expect(out.length).toBeLessThanOrEqual(11);
    expect(out.every((s) => s.kind === "busy" && s.end - s.start <= 1_000)).toBe(true);
    expect(out.reduce((sum, s) => sum + (s.tenures ?? 0), 0)).toBe(1_000);
  });

  it("never returns more than twice the budget plus one, over 20,000 tenures", () => {
    let cursor = 0;
    const many = Array.from({ length: 20_000 }, (_, i) => {
      const length = i % 7 === 0 ? 90_000 : 30 + (i % 13) * 1_000;
      cursor += length;
      return held(cursor - length, cursor, `c${i % 5}`);
    });
    const end = cursor;
    const out = downsampleSegments(many, 0, end, 500);
    expect(out.length).toBeLessThanOrEqual(1001);
    // No time is lost: the output still covers the whole range without gaps.
    expect(out[0]!.start).toBe(0);
    expect(out[out.length - 1]!.end).toBe(end);
    for (let i = 1; i < out.length; i++) expect(out[i]!.start).toBe(out[i - 1]!.end);
  });

  it("shares the budget between lanes (at least 40 each) and says when it merged", () => {
    expect(segmentBudgetPerLane(2)).toBe(500);
    expect(segmentBudgetPerLane(100)).toBe(40);
    const lanes = [{ partition: 0, label: "p0", segments: Array.from({ length: 100 }, (_, i) => held(i, i + 1, i % 2 ? "a" : "b")) }];
    const { lanes: out, isDownsampled } = downsampleLanes(lanes, 0, 100, 20);
    expect(isDownsampled).toBe(true);
    expect(out[0]!.segments.length).toBeLessThanOrEqual(2 * 40 + 1);
  });
});

describe("marker bucketing", () => {
  const change = (ms: number, kind: TimelineChange["kind"] = "HOLDER_CHANGED", partition = 0): TimelineChange => ({
    partition,
    kind,
    cause: "CLIENT",
    fromHolder: "a",
    toHolder: "b",
    oldSeenAt: null,
    newSeenAt: ms,
    isDuringGap: false,
  });

  it("gives one marker per change within the budget", () => {
    const { markers, isBucketed } = bucketMarkers([change(10), change(20)], 0, 100, 10);
    expect(isBucketed).toBe(false);
    expect(markers.map((m) => [m.at, m.count])).toEqual([
      [10, 1],
      [20, 1],
    ]);
  });

  it("puts markers in time order, then lane, whatever order the changes came in", () => {
    const { markers } = bucketMarkers([change(30), change(10, "HOLDER_CHANGED", 1), change(20), change(10)], 0, 100, 10);
    expect(markers.map((m) => [m.at, m.partition])).toEqual([
      [10, 0],
      [10, 1],
      [20, 0],
      [30, 0],
    ]);
  });

  it("beyond it, one marker per partition and bucket, at its first change, showing its most alarming kind and the count", () => {
    const changes = [change(1), change(2, "HOLDER_LOST"), change(3), change(60), change(5, "HIDDEN_FLAP", 1)];
    const { markers, isBucketed } = bucketMarkers(changes, 0, 100, 4);
    expect(isBucketed).toBe(true);
    expect(markers.map((m) => [m.partition, m.at, m.kind, m.count])).toEqual([
      [0, 1, "HOLDER_LOST", 3],
      [1, 5, "HIDDEN_FLAP", 1],
      [0, 60, "HOLDER_CHANGED", 1],
    ]);
  });
});
