import { describe, expect, it } from "vitest";

import { MAX_REPLAYED_EVENTS, replayConsumerChurn } from "@/lib/sources/pulsar/replay-consumer-churn";

// The Failover rule over a 4-partition topic: partition p goes to the p % n-th consumer by name.
const base = { topic: "persistent://acme/orders/orders", subscriptionType: "Failover" };

describe("replaying a consumer churn within one poll", () => {
  it("finds a hand-over and back that every order passes through (pod-3 joins, pod-2 leaves)", () => {
    expect(replayConsumerChurn({ ...base, partition: 3, holder: "pod-1", before: ["pod-1", "pod-2", "pod-4"], added: ["pod-3"], removed: ["pod-2"] })).toEqual({
      via: ["pod-4"],
      isCertain: true,
    });
  });

  it("tells a possible one: some order keeps the holder active throughout", () => {
    // Partition 1 of [a, b]: b. "0" joining first makes a active ([0, a, b]); a leaving first keeps b.
    expect(replayConsumerChurn({ ...base, partition: 1, holder: "b", before: ["a", "b"], added: ["0"], removed: ["a"] })).toEqual({
      via: ["a"],
      isCertain: false,
    });
  });

  it("claims nothing where there is no set in between, no rule, or too many events", () => {
    expect(replayConsumerChurn({ ...base, partition: 3, holder: "pod-1", before: ["pod-1", "pod-2", "pod-4"], added: ["pod-3"], removed: [] })).toBeNull();
    expect(
      replayConsumerChurn({
        ...base,
        subscriptionType: "Shared",
        partition: 3,
        holder: "pod-1",
        before: ["pod-1", "pod-2", "pod-4"],
        added: ["pod-3"],
        removed: ["pod-2"],
      }),
    ).toBeNull();
    const many = Array.from({ length: MAX_REPLAYED_EVENTS }, (_, i) => `z-${i}`);
    expect(replayConsumerChurn({ ...base, partition: 3, holder: "pod-1", before: ["pod-1", "pod-2", "pod-4"], added: many, removed: ["pod-2"] })).toBeNull();
    // The rule disagrees with the broker's holder: Baton's inputs are not the broker's.
    expect(
      replayConsumerChurn({ ...base, partition: 3, holder: "pod-2", before: ["pod-1", "pod-2", "pod-4"], added: ["pod-3"], removed: ["pod-4"] }),
    ).toBeNull();
  });
});
