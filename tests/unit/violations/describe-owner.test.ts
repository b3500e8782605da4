import { describe, expect, it } from "vitest";

import { describeOwner } from "@/lib/violations/describe-owner";
import type { ViolationExplanation } from "@/lib/violations/drilldown-types";
import type { ViolationOwner } from "@/lib/violations/owner-types";

const AT = "2026-11-22T10:02:05.000Z";
const explanation: ViolationExplanation = {
  eventId: "e2",
  previousEntry: { eventId: "e1", worker: "consumer-a", observedAt: "2026-11-22T10:02:04.000Z", gapMs: 1_000 },
  othersInside: [],
  insideDeploymentIds: [],
  nearbyDeploymentIds: [],
  leaderChangeIds: [],
  lockChangeIds: [],
  cause: "failover-overlap",
  owner: null,
  wakeAfterMove: null,
};
const context = { key: "user-42", observedAt: AT, windowMs: 120_000, timeZone: "UTC", explanation };

const keyShared = (change: Extract<ViolationOwner, { isComputed: true }>["change"]): ViolationOwner => ({
  isComputed: true,
  rule: "key-shared",
  owner: "consumer-b",
  hash: 21_877,
  range: [16_384, 32_767],
  partition: -1,
  isPartitionRouted: false,
  change,
});

describe("describeOwner", () => {
  it("tells the Key_Shared ordering break: the hash, the range that moved, who joined, who was still processing", () => {
    const owner = keyShared({
      from: "consumer-a",
      to: "consumer-b",
      changedAfter: "2026-11-22T10:02:03.700Z",
      changedAt: "2026-11-22T10:02:04.200Z",
      rangeBefore: [16_384, 32_767],
      joined: ["consumer-c"],
      left: [],
    });
    expect(describeOwner(owner, context)).toBe(
      "Key user-42 hashes to 21,877; at 2026-11-22 10:02:04.200 range 16,384-32,767 moved from consumer-a to consumer-b (consumer-c joined) (800 ms before the violation); consumer-a was still processing user-42.",
    );
  });

  it("calls a stable owner the alarming kind", () => {
    expect(describeOwner(keyShared(null), context)).toBe(
      "Key user-42 hashes to 21,877, in range 16,384-32,767 of consumer-b; the owner did not change within ±2 m: two workers were inside with no rebalance.",
    );
  });

  it("names a routed partition's leader and its change", () => {
    const owner: ViolationOwner = {
      isComputed: true,
      rule: "failover",
      owner: "w2",
      hash: null,
      range: null,
      partition: 3,
      isPartitionRouted: true,
      change: { from: "w1", to: "w2", changedAfter: null, changedAt: "2026-11-22T10:02:08.000Z", rangeBefore: null, joined: [], left: [] },
    };
    expect(describeOwner(owner, { ...context, explanation: null })).toBe(
      "Key user-42 routes to partition 3; at 2026-11-22 10:02:08.000 the leader of partition 3 moved from w1 to w2 (3.0 s after the violation).",
    );
  });

  it("says plainly why an owner cannot be computed", () => {
    expect(
      describeOwner(
        { isComputed: false, reason: "no-owner-rule", detail: "a Shared subscription spreads keys over its consumers: no key has an owner" },
        context,
      ),
    ).toBe("The owner of key user-42 cannot be computed: a Shared subscription spreads keys over its consumers: no key has an owner.");
  });
});
