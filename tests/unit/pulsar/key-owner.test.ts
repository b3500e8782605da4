import { describe, expect, it } from "vitest";

import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { buildHashRangeSplit, parseConsumerRanges } from "@/lib/pulsar/hash-ranges";
import { findKeyOwner, inferKeySharedSelector } from "@/lib/pulsar/key-owner";
import { pulsarMurmur3Hash } from "@/lib/pulsar/murmur3";
import { topicStatsSchema } from "@/lib/pulsar/schemas";
import { foldStickyKeyHash } from "@/lib/pulsar/sticky-key-hash";
import { readFixtureBody } from "@/tests/unit/pulsar/read-fixture";

const utf8 = (text: string) => new TextEncoder().encode(text);
const MAX_INT = 2147483647;

function recordedSplit(version: "4.2.4" | "3.0.7"): { split: HashRangeSplit; keySharedMode: string | undefined } {
  const subscription = topicStatsSchema.parse(readFixtureBody(version, "key-shared")).subscriptions["clicks-readers"]!;
  const split = buildHashRangeSplit(subscription.consumers.map((c) => ({ name: c.consumerName!, ranges: parseConsumerRanges(c) })))!;
  return { split, keySharedMode: subscription.keySharedMode };
}

/**
 * The consistent-hashing selector's ring, rebuilt from the consumer names the way each line's
 * ConsistentHashingStickyKeyConsumerSelector places its 100 points per consumer (name, NUL, name
 * index 0, NUL, point), and the ranges its stats report. If the hash and fold are right, this
 * reproduces the broker's recorded ranges exactly.
 */
function rebuildRingRanges(line: "4.2" | "3.0", namesInJoinOrder: string[]): Record<string, HashRange[]> {
  const ring = new Map<number, string>();
  for (const name of namesInJoinOrder) {
    for (let point = 0; point < 100; point++) {
      const raw = pulsarMurmur3Hash(utf8(`${name}\u00000\u0000${point}`));
      // 4.2 folds the point like a key and keeps the first consumer on a collision; 3.0 keeps the last.
      if (line === "4.2") {
        const hash = foldStickyKeyHash(raw, "mod-65535-plus-1");
        if (!ring.has(hash)) ring.set(hash, name);
      } else {
        ring.set(raw, name);
      }
    }
  }
  const points = [...ring.keys()].sort((a, b) => a - b);
  const ranges: Record<string, HashRange[]> = {};
  const add = (name: string, range: HashRange) => (ranges[name] ??= []).push(range);
  const first = ring.get(points[0]!)!;
  if (line === "3.0") {
    let start = 0;
    for (const point of points) {
      add(ring.get(point)!, [start, point]);
      start = point + 1;
    }
    add(first, [start, MAX_INT - 1]);
    return ranges;
  }
  // 4.2 joins neighbouring ranges of one consumer, from 1 to 65535.
  const joined: { name: string; range: HashRange }[] = [];
  let start = 1;
  for (const point of points) {
    const name = ring.get(point)!;
    const last = joined.at(-1);
    if (last?.name === name) last.range[1] = point;
    else joined.push({ name, range: [start, point] });
    start = point + 1;
  }
  if (start <= 65535) {
    const last = joined.at(-1)!;
    if (last.name === first) last.range[1] = 65535;
    else joined.push({ name: first, range: [start, 65535] });
  }
  for (const { name, range } of joined) add(name, range);
  return ranges;
}

const sortRanges = (ranges: HashRange[]) => [...ranges].sort((a, b) => a[0] - b[0]);

describe.each([
  ["4.2.4", "4.2"],
  ["3.0.7", "3.0"],
] as const)("the recorded %s Key_Shared split", (version, line) => {
  const { split, keySharedMode } = recordedSplit(version);

  it("is what the consistent-hashing ring of k1, k2, k3 gives (the hash and fold reproduce the broker's ranges)", () => {
    const rebuilt = rebuildRingRanges(line, ["k1", "k2", "k3"]);
    for (const { consumer, ranges } of split.consumers) expect(sortRanges(ranges), consumer).toEqual(sortRanges(rebuilt[consumer]!));
  });

  it("is told to come from the consistent-hashing selector", () => {
    expect(inferKeySharedSelector(line, split, keySharedMode)).toEqual({ ok: true, value: "consistent-hashing" });
  });

  it("gives every key exactly one owner", () => {
    for (let i = 0; i < 500; i++) {
      const result = findKeyOwner({ key: `user-${i}`, line, subscriptionType: "Key_Shared", keySharedMode, split });
      if (!result.ok) throw new Error(result.detail);
      expect(["k1", "k2", "k3"]).toContain(result.value.owner);
      expect(result.value.range![0]).toBeLessThanOrEqual(result.value.hash);
      expect(result.value.hash).toBeLessThanOrEqual(result.value.range![1]);
    }
  });
});

describe("the owner of a key", () => {
  const autoSplit: HashRangeSplit = {
    space: 65536,
    consumers: [
      { consumer: "a", ranges: [[0, 32768]] },
      { consumer: "b", ranges: [[32769, 65536]] },
    ],
  };

  it("on 4.2 consistent hashing: the range holding murmur % 65535 + 1 (user-42 → 5188)", () => {
    const split: HashRangeSplit = {
      space: 65536,
      consumers: [
        { consumer: "a", ranges: [[1, 5187]] },
        { consumer: "b", ranges: [[5188, 65535]] },
      ],
    };
    expect(findKeyOwner({ key: "user-42", line: "4.2", subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split })).toEqual({
      ok: true,
      value: { hash: 5188, fold: "mod-65535-plus-1", owner: "b", range: [5188, 65535] },
    });
  });

  it("on an auto-split selector: murmur % 65536 (user-42 → 56016)", () => {
    for (const line of ["4.2", "3.0"] as const) {
      const result = findKeyOwner({ key: "user-42", line, subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split: autoSplit });
      expect(result).toMatchObject({ ok: true, value: { hash: 56016, owner: "b" } });
    }
  });

  it("on 3.0 consistent hashing: the full 31-bit hash, and 2^31-1 wraps to the holder of 0", () => {
    const split: HashRangeSplit = {
      space: MAX_INT,
      consumers: [
        { consumer: "a", ranges: [[0, 963828431]] },
        { consumer: "b", ranges: [[963828432, MAX_INT - 1]] },
      ],
    };
    expect(findKeyOwner({ key: "user-42", line: "3.0", subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split })).toMatchObject({
      ok: true,
      value: { hash: 963828432, fold: "full-31-bit", owner: "b" },
    });
    // The broker's ring has no point past the last range's end, so a hash beyond it wraps to the
    // consumer that holds 0 (3.0 reports ranges up to 2^31-2 while a key may hash to 2^31-1).
    const short: HashRangeSplit = {
      space: MAX_INT,
      consumers: [
        { consumer: "a", ranges: [[0, 100]] },
        { consumer: "b", ranges: [[101, 963828431]] },
      ],
    };
    expect(findKeyOwner({ key: "user-42", line: "3.0", subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split: short })).toMatchObject({
      ok: true,
      value: { hash: 963828432, owner: "a", range: [0, 100] },
    });
  });

  it("on STICKY: the declared ranges, and no owner in a gap", () => {
    const split: HashRangeSplit = { space: 65536, consumers: [{ consumer: "a", ranges: [[0, 1000]] }] };
    expect(findKeyOwner({ key: "user-42", line: "4.2", subscriptionType: "Key_Shared", keySharedMode: "STICKY", split })).toMatchObject({
      ok: true,
      value: { hash: 56016, owner: null, range: null },
    });
  });

  it.each([
    ["Shared", "AUTO_SPLIT", autoSplit, "user-42", "no-owner-rule"],
    ["Failover", undefined, autoSplit, "user-42", "no-owner-rule"],
    [undefined, undefined, autoSplit, "user-42", "no-owner-rule"],
    ["Key_Shared", "AUTO_SPLIT", null, "user-42", "no-ranges"],
    ["Key_Shared", "AUTO_SPLIT", autoSplit, "bad\uFFFD", "key-not-utf8"],
    ["Key_Shared", "AUTO_SPLIT", { space: 65536, consumers: [{ consumer: "a", ranges: [[0, 40000]] }] }, "user-42", "ranges-not-of-this-line"],
    [
      "Key_Shared",
      "AUTO_SPLIT",
      {
        space: 65536,
        consumers: [
          { consumer: "a", ranges: [[0, 65536]] },
          { consumer: "b", ranges: [[50000, 60000]] },
        ],
      },
      "user-42",
      "overlapping-ranges",
    ],
  ] as const)("cannot be computed for type %s, mode %s, split %j, key %j: %s", (subscriptionType, keySharedMode, split, key, reason) => {
    const result = findKeyOwner({ key, line: "4.2", subscriptionType, keySharedMode, split: split as HashRangeSplit | null });
    expect(result).toMatchObject({ ok: false, reason });
  });

  it("refuses 3.0-style ranges on a 4.2 broker", () => {
    const split: HashRangeSplit = { space: MAX_INT, consumers: [{ consumer: "a", ranges: [[0, MAX_INT - 1]] }] };
    expect(findKeyOwner({ key: "k", line: "4.2", subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split })).toMatchObject({
      ok: false,
      reason: "ranges-not-of-this-line",
    });
  });
});
