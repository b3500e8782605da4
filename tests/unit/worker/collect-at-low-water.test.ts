import { describe, expect, it } from "vitest";

import { createLowWaterCollector, MIN_COLLECTION_INTERVAL_MS } from "@/lib/worker/collect-at-low-water";

describe("the collection after a saved sweep", () => {
  it("collects at most once an interval, however many sweeps are saved", () => {
    let nowMs = 1_000;
    let collections = 0;
    const collect = createLowWaterCollector(() => collections++, () => nowMs);
    expect(collect()).toBe(true);
    nowMs += MIN_COLLECTION_INTERVAL_MS - 1;
    expect(collect()).toBe(false);
    nowMs += 1;
    expect(collect()).toBe(true);
    expect(collections).toBe(2);
  });

  it("does nothing where node does not expose gc", () => {
    expect(createLowWaterCollector(undefined)()).toBe(false);
  });
});
