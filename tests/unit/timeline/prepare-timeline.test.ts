import { describe, expect, it } from "vitest";

import { prepareTimeline, toDeploymentBands } from "@/lib/timeline/prepare-timeline";
import type { TimelineChange } from "@/lib/timeline/timeline-types";

const T0 = Date.parse("2026-11-15T12:00:00.000Z");
const DAY = 86_400_000;

describe("prepared timeline", () => {
  it("clips deployment bands to the range; one in progress runs until now", () => {
    const bands = toDeploymentBands(
      [
        { service: "billing", version: "1", startedAt: new Date(T0 - 1_000).toISOString(), finishedAt: new Date(T0 + 5_000).toISOString() },
        { service: "billing", version: "2", startedAt: new Date(T0 + 50_000).toISOString(), finishedAt: null },
        { service: "old", version: "0", startedAt: new Date(T0 - 9_000).toISOString(), finishedAt: new Date(T0 - 5_000).toISOString() },
      ],
      T0,
      T0 + 100_000,
      T0 + 60_000,
    );
    expect(bands).toEqual([
      { service: "billing", version: "1", start: T0, end: T0 + 5_000, isInProgress: false },
      { service: "billing", version: "2", start: T0 + 50_000, end: T0 + 60_000, isInProgress: true },
    ]);
  });

  it("draws 7 days of 20,000 changes on 4 partitions within a few thousand shapes, with every consumer in the legend", () => {
    const changes: TimelineChange[] = [];
    const names = ["w1", "w2", "w3", "w4", "w5"];
    for (let i = 0; i < 20_000; i++) {
      const at = T0 + Math.floor((i * 7 * DAY) / 20_000);
      const partition = i % 4;
      changes.push({
        partition,
        kind: "HOLDER_CHANGED",
        cause: "CLIENT",
        fromHolder: names[(i + 4) % 5]!,
        toHolder: names[i % 5]!,
        oldSeenAt: at - 500,
        newSeenAt: at,
        isDuringGap: false,
      });
    }
    const timeline = prepareTimeline({
      fromMs: T0 - 1_000,
      toMs: T0 + 7 * DAY,
      nowMs: T0 + 7 * DAY,
      isKeyShared: false,
      lanes: [0, 1, 2, 3].map((partition) => ({
        partition,
        holderAtRangeEnd: "w1",
        firstSeenAt: T0 - DAY,
        lastObservedAt: T0 + 7 * DAY,
        staleSince: null,
        goneAt: null,
      })),
      changes,
      deployments: [],
      currentConsumers: ["w9"],
    });
    const segments = timeline.lanes.reduce((sum, lane) => sum + lane.segments.length, 0);
    expect(segments).toBeLessThanOrEqual(2_100);
    expect(timeline.markers.length).toBeLessThanOrEqual(1_500);
    expect(timeline.markers.reduce((sum, m) => sum + m.count, 0)).toBe(20_000);
    expect(timeline.isDownsampled).toBe(true);
    expect(timeline.changeCount).toBe(20_000);
    expect(timeline.consumers).toEqual(["w1", "w2", "w3", "w4", "w5", "w9"]);
  });
});
