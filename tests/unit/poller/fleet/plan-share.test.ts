import { describe, expect, it } from "vitest";

import { fleetKeyOf, planShare, shareOf, takeOrder } from "@/lib/poller/fleet/plan-share";

describe("the even spread of a fleet's clusters", () => {
  it("gives the first N mod W replicas by id ceil(N / W), the others floor(N / W): never more than ceil, never one idle while another holds two more", () => {
    const five = ["w1", "w2", "w3", "w4", "w5"];
    expect(five.map((id) => shareOf(12, five, id))).toEqual([3, 3, 2, 2, 2]);
    expect(["a", "b", "c"].map((id) => shareOf(12, ["c", "a", "b"], id))).toEqual([4, 4, 4]);
    expect(["a", "b", "c"].map((id) => shareOf(2, ["a", "b", "c"], id))).toEqual([1, 1, 0]);
    // A replica always counts itself, even before the others see it.
    expect(shareOf(12, [], "alone")).toBe(12);
  });

  it("takes what it lacks, or gives back its surplus, highest ids first", () => {
    expect(planShare({ clusterIds: [1, 2, 3, 4, 5, 6], held: [1], liveReplicas: ["a", "b"], replicaId: "a" })).toEqual({ share: 3, toTake: 2, toGiveBack: [] });
    expect(planShare({ clusterIds: [1, 2, 3, 4, 5, 6], held: [1, 2, 5, 6], liveReplicas: ["a", "b", "c"], replicaId: "c" })).toEqual({
      share: 2,
      toTake: 0,
      toGiveBack: [6, 5],
    });
  });

  it("tries the free leases from an offset of its own, and names a fleet by its clusters, in any order", () => {
    expect(takeOrder([1, 2, 3, 4], new Set([2]), 1)).toEqual([3, 4, 1]);
    expect(takeOrder([1, 2], new Set([1, 2]), 7)).toEqual([]);
    expect(fleetKeyOf(["b", "a"])).toBe(fleetKeyOf(["a", "b"]));
    expect(fleetKeyOf(["a", "b"])).not.toBe(fleetKeyOf(["a", "c"]));
    expect(fleetKeyOf(["a"])).toBeLessThan(2 ** 31);
  });
});
