import { describe, expect, it } from "vitest";

import { fitLaneLabels, MAX_LANE_LABEL_PX, MIN_LANE_LABEL_PX } from "@/lib/timeline/lane-labels";

describe("fitLaneLabels", () => {
  it("keeps short labels whole in the narrowest column", () => {
    expect(fitLaneLabels(["p0", "p1"])).toEqual({ width: MIN_LANE_LABEL_PX, texts: ["p0", "p1"] });
    expect(fitLaneLabels([])).toEqual({ width: MIN_LANE_LABEL_PX, texts: [] });
  });

  it("widens the column for a lock key, so that '/demo/index-builder/leader' is not cut", () => {
    const { width, texts } = fitLaneLabels(["/demo/index-builder/leader", "scheduler:leader"]);
    expect(texts).toEqual(["/demo/index-builder/leader", "scheduler:leader"]);
    expect(width).toBeGreaterThanOrEqual(12 + 26 * 7);
    expect(width).toBeLessThanOrEqual(MAX_LANE_LABEL_PX);
  });

  it("abbreviates a label too long for the widest column around an ellipsis, keeping both ends", () => {
    const long = `locks/${"x".repeat(60)}/tenant-42/leader`;
    const { width, texts } = fitLaneLabels([long, "short"]);
    expect(width).toBe(MAX_LANE_LABEL_PX);
    expect(texts[0]).toMatch(/^locks\/x+….*tenant-42\/leader$/);
    expect(texts[0]!.length).toBeLessThanOrEqual(Math.floor((MAX_LANE_LABEL_PX - 12) / 7.2));
    expect(texts[1]).toBe("short");
  });
});
