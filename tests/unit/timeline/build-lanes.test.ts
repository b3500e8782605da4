import { describe, expect, it } from "vitest";

import { buildLanes } from "@/lib/timeline/build-lanes";
import type { LaneState, TimelineChange } from "@/lib/timeline/timeline-types";

const T = (s: number) => Date.parse("2026-11-22T10:00:00.000Z") + s * 1000;

function lane(overrides: Partial<LaneState> = {}): LaneState {
  return { partition: 0, holderAtRangeEnd: "a", firstSeenAt: T(-3600), lastObservedAt: T(99), staleSince: null, goneAt: null, ...overrides };
}

function change(kind: TimelineChange["kind"], from: string | null, to: string | null, oldSeen: number, newSeen: number, partition = 0): TimelineChange {
  return { partition, kind, cause: "CLIENT", fromHolder: from, toHolder: to, oldSeenAt: T(oldSeen), newSeenAt: T(newSeen), isDuringGap: false };
}

const simplify = (lanes: ReturnType<typeof buildLanes>) =>
  lanes.map((l) => [l.label, l.segments.map((s) => [s.kind, s.holder, (s.start - T(0)) / 1000, (s.end - T(0)) / 1000])]);

describe("tenure lanes", () => {
  it("is one tenure of the current holder over the whole range when nothing changed", () => {
    const lanes = buildLanes({ fromMs: T(0), toMs: T(100), nowMs: T(100), isKeyShared: false, lanes: [lane()], changes: [] });
    expect(simplify(lanes)).toEqual([["p0", [["held", "a", 0, 100]]]]);
  });

  it("ends a tenure at the last poll that saw it, starts the next at the first that saw it, and leaves the interval unobserved", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(100),
      isKeyShared: false,
      lanes: [lane({ holderAtRangeEnd: "b" })],
      changes: [change("HOLDER_LOST", "a", null, 20, 25), change("HOLDER_APPEARED", null, "b", 40, 45)],
    });
    expect(simplify(lanes)).toEqual([
      [
        "p0",
        [
          ["held", "a", 0, 20],
          ["unobserved", null, 20, 25],
          ["none", null, 25, 40],
          ["unobserved", null, 40, 45],
          ["held", "b", 45, 100],
        ],
      ],
    ]);
  });

  it("splits a hidden flap into two tenures of the same consumer", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(100),
      isKeyShared: false,
      lanes: [lane()],
      changes: [change("HIDDEN_FLAP", "a", "a", 40, 45)],
    });
    expect(simplify(lanes)[0]![1]).toEqual([
      ["held", "a", 0, 40],
      ["unobserved", null, 40, 45],
      ["held", "a", 45, 100],
    ]);
  });

  it("knows the holder at the start from the first change in range, whatever order the changes come in", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(100),
      isKeyShared: false,
      lanes: [lane({ holderAtRangeEnd: "c" })],
      changes: [change("HOLDER_CHANGED", "b", "c", 60, 61), change("CONSUMERS_CHANGED", "a", "a", 5, 6), change("HOLDER_CHANGED", "a", "b", 30, 31)],
    });
    expect(simplify(lanes)[0]![1]).toEqual([
      ["held", "a", 0, 30],
      ["unobserved", null, 30, 31],
      ["held", "b", 31, 60],
      ["unobserved", null, 60, 61],
      ["held", "c", 61, 100],
    ]);
  });

  it("draws what Baton did not see as unobserved: before it was found, after polls began to fail, after it was gone", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(100),
      isKeyShared: false,
      lanes: [lane({ partition: 0, firstSeenAt: T(10), lastObservedAt: T(70), staleSince: T(72) }), lane({ partition: 1, goneAt: T(50) })],
      changes: [],
    });
    expect(simplify(lanes)).toEqual([
      [
        "p0",
        [
          ["unobserved", null, 0, 10],
          ["held", "a", 10, 70],
          ["unobserved", null, 70, 100],
        ],
      ],
      ["p1", [["held", "a", 0, 50]]],
    ]);
  });

  it("stops at now for a range that ends in the future, and labels Key_Shared lanes as shared", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(50),
      isKeyShared: true,
      lanes: [lane({ partition: -1, holderAtRangeEnd: null })],
      changes: [],
    });
    expect(simplify(lanes)).toEqual([["topic", [["shared", null, 0, 50]]]]);
  });

  it("names a lock's lane by its key, and a lock that expired while held ends its tenure at the last poll that saw it", () => {
    const lanes = buildLanes({
      fromMs: T(0),
      toMs: T(100),
      nowMs: T(100),
      isKeyShared: false,
      lanes: [lane({ label: "lock:daily-job", holderAtRangeEnd: "pod-b" }), lane({ partition: 1, label: "lock:other", holderAtRangeEnd: null })],
      changes: [{ ...change("HOLDER_CHANGED", "pod-a", "pod-b", 40, 41), ending: "EXPIRED" }],
    });
    expect(simplify(lanes)).toEqual([
      [
        "lock:daily-job",
        [
          ["held", "pod-a", 0, 40],
          ["unobserved", null, 40, 41],
          ["held", "pod-b", 41, 100],
        ],
      ],
      ["lock:other", [["none", null, 0, 100]]],
    ]);
  });
});
