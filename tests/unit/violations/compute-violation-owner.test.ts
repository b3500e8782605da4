import { describe, expect, it } from "vitest";

import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { javaStringHash } from "@/lib/pulsar/producer-routing";
import { computeStickyKeyHash } from "@/lib/pulsar/sticky-key-hash";
import {
  computeViolationOwner,
  findPeriodAt,
  lineOfSplit,
  type PartitionHistory,
  type SplitPeriod,
  type SubscriptionHistory,
} from "@/lib/violations/compute-violation-owner";

const T = Date.parse("2026-11-22T10:02:05.000Z");
const WINDOW = 120_000;
const KEY = "user-42";
/** 4.2 consistent hashing: hash % 65535 + 1. */
const HASH = computeStickyKeyHash(new TextEncoder().encode(KEY), "mod-65535-plus-1");

/** Two consumers split 1..65535 at `cut`; the key's owner is whoever holds HASH. */
function split(consumers: [string, number, number][]): HashRangeSplit {
  return { space: 65_536, consumers: consumers.map(([consumer, start, end]) => ({ consumer, ranges: [[start, end]] })) };
}
const before = split([["consumer-a", 1, 65_535]]);
// consumer-c joins and takes the half that holds the key.
const holdingHalf: [number, number] = HASH <= 32_767 ? [1, 32_767] : [32_768, 65_535];
const otherHalf: [number, number] = HASH <= 32_767 ? [32_768, 65_535] : [1, 32_767];
const after = split([
  ["consumer-a", ...otherHalf],
  ["consumer-c", ...holdingHalf],
]);

function period(s: HashRangeSplit, fromMs: number, toMs: number | null, changedAfterMs: number | null = null): SplitPeriod {
  return { split: s, validFromMs: fromMs, validToMs: toMs, changedAfterMs };
}

function keyShared(periods: SplitPeriod[], overrides: Partial<PartitionHistory> = {}): SubscriptionHistory {
  return {
    subscriptionType: "Key_Shared",
    partitions: new Map([[-1, { firstSeenAtMs: T - 3_600_000, holder: null, splits: periods, leaderChanges: [], ...overrides }]]),
  };
}

const ask = (history: SubscriptionHistory | null, atMs = T, partition: number | null = null, key = KEY) =>
  computeViolationOwner({ key, atMs, partition }, history, { windowMs: WINDOW, scheme: "JavaStringHash" });

describe("findPeriodAt", () => {
  const periods = [10, 20, 30].map((validFromMs) => ({ validFromMs }));
  it.each([
    [5, null],
    [10, 10],
    [19, 10],
    [20, 20],
    [1_000, 30],
  ])("at %i: the period from %s", (at, expected) => {
    expect(findPeriodAt(periods, at)?.validFromMs ?? null).toBe(expected);
  });
});

describe("lineOfSplit", () => {
  it("reads 3.0 from a 31-bit hash space and 4.2 otherwise", () => {
    expect(lineOfSplit({ space: 2_147_483_647, consumers: [] })).toBe("3.0");
    expect(lineOfSplit(before)).toBe("4.2");
  });
});

describe("computeViolationOwner: Key_Shared", () => {
  it("finds the owner under the split valid at the time, with the change of owner around it and who joined", () => {
    const changedAt = T - 800;
    const owner = ask(keyShared([period(before, T - 600_000, changedAt), period(after, changedAt, null, T - 1_300)]));
    expect(owner).toEqual({
      isComputed: true,
      rule: "key-shared",
      owner: "consumer-c",
      hash: HASH,
      range: holdingHalf,
      partition: -1,
      isPartitionRouted: false,
      change: {
        from: "consumer-a",
        to: "consumer-c",
        changedAfter: new Date(T - 1_300).toISOString(),
        changedAt: new Date(changedAt).toISOString(),
        rangeBefore: [1, 65_535],
        joined: ["consumer-c"],
        left: [],
      },
    });
  });

  it("uses the earlier split before the change, and reports the change after the violation too", () => {
    const owner = ask(keyShared([period(before, T - 600_000, T + 5_000), period(after, T + 5_000, null, T + 4_000)]));
    expect(owner).toMatchObject({ isComputed: true, owner: "consumer-a", range: [1, 65_535], change: { from: "consumer-a", to: "consumer-c" } });
  });

  it("calls the owner stable when the ranges moved but not the key's, or moved outside the window", () => {
    // The split changes inside the window, but the key stays with consumer-a.
    const keeps = split([
      ["consumer-a", ...holdingHalf],
      ["consumer-c", ...otherHalf],
    ]);
    const stable = ask(keyShared([period(before, T - 600_000, T - 1_000), period(keeps, T - 1_000, null)]));
    expect(stable).toMatchObject({ isComputed: true, owner: "consumer-a", change: null });
    const far = ask(keyShared([period(before, T - 900_000, T - WINDOW - 1), period(after, T - WINDOW - 1, null)]));
    expect(far).toMatchObject({ isComputed: true, owner: "consumer-c", change: null });
  });

  it("cannot compute without history at the time, or while no consumer had ranges", () => {
    expect(ask(keyShared([period(before, T + 1_000, null)]))).toMatchObject({ isComputed: false, reason: "no-history" });
    expect(ask(keyShared([]))).toMatchObject({ isComputed: false, reason: "no-history" });
    expect(ask(keyShared([period(before, T - 60_000, T - 1_000)]))).toMatchObject({ isComputed: false, reason: "no-ranges" });
  });

  it("cannot compute a key that is not valid UTF-8 as sent", () => {
    expect(ask(keyShared([period(before, T - 60_000, null)]), T, null, "bad\uFFFDkey")).toMatchObject({ isComputed: false, reason: "key-not-utf8" });
    expect(ask(null)).toMatchObject({ isComputed: false, reason: "no-resource" });
  });
});

describe("computeViolationOwner: subscription types", () => {
  it("answers a plain reason for Shared and for an unknown subscription, never an owner", () => {
    expect(ask({ subscriptionType: "Shared", partitions: new Map() })).toEqual({
      isComputed: false,
      reason: "no-owner-rule",
      detail: "a Shared subscription spreads keys over its consumers: no key has an owner",
    });
    expect(ask(null)).toMatchObject({ isComputed: false, reason: "no-resource" });
  });
});

describe("computeViolationOwner: Failover", () => {
  const partitions = 4;
  const routed = javaStringHash(KEY) % partitions;
  function failover(changes: PartitionHistory["leaderChanges"], firstSeenAt = (p: number) => (p >= 0 ? T - 3_600_000 : 0)): SubscriptionHistory {
    const map = new Map<number, PartitionHistory>();
    for (let p = 0; p < partitions; p++)
      map.set(p, { firstSeenAtMs: firstSeenAt(p), holder: `w${p}-now`, splits: [], leaderChanges: p === routed ? changes : [] });
    return { subscriptionType: "Failover", partitions: map };
  }

  it("routes the key to its partition with the producers' hashing scheme, and names the leader then", () => {
    const owner = ask(failover([{ fromHolder: "w1", toHolder: "w2", oldSeenAtMs: T - 10_000, newSeenAtMs: T - 9_500, joined: [], left: ["w1"] }]));
    expect(owner).toMatchObject({
      isComputed: true,
      rule: "failover",
      partition: routed,
      isPartitionRouted: true,
      owner: "w2",
      change: { from: "w1", to: "w2", joined: [], left: ["w1"] },
    });
  });

  it("takes the leader before the first change, or the current one when nothing changed", () => {
    expect(ask(failover([{ fromHolder: "w1", toHolder: "w2", oldSeenAtMs: T + 600_000, newSeenAtMs: T + 600_500, joined: ["w3"], left: [] }]))).toMatchObject({
      owner: "w1",
      change: null,
    });
    expect(ask(failover([]))).toMatchObject({ owner: `w${routed}-now`, change: null });
    expect(ask(failover([]), T, 2)).toMatchObject({ owner: "w2-now", partition: 2, isPartitionRouted: false });
  });

  it("cannot route a key when the partition count changed inside the window", () => {
    const grown = failover([], (p) => (p === 3 ? T - 30_000 : T - 3_600_000));
    expect(ask(grown)).toMatchObject({ isComputed: false, reason: "partition-count-changed" });
    // Grown long before: routed over the 4 partitions.
    expect(ask(failover([], (p) => (p === 3 ? T - 1_800_000 : T - 3_600_000)))).toMatchObject({ isComputed: true, partition: routed });
  });
});
