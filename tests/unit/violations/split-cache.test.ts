import { describe, expect, it } from "vitest";

import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { createSplitCache } from "@/lib/violations/queries/split-cache";

const splitOf = (ranges: number): HashRangeSplit => ({
  space: 65_536,
  consumers: [{ consumer: "c-0", ranges: Array.from({ length: ranges }, (_, i): [number, number] => [i * 10 + 1, i * 10 + 10]) }],
});

describe("the parsed-split cache", () => {
  it("answers what it was given by digest, and nothing else", () => {
    const cache = createSplitCache(100);
    const split = splitOf(3);
    cache.set("a", split);
    expect(cache.get("a")).toBe(split);
    expect(cache.get("b")).toBeUndefined();
  });

  it("holds at most its ranges, dropping the least recently used first", () => {
    const cache = createSplitCache(10);
    cache.set("a", splitOf(4));
    cache.set("b", splitOf(4));
    // Reading "a" makes "b" the least recently used.
    expect(cache.get("a")).toBeDefined();
    cache.set("c", splitOf(4));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it("does not keep a split larger than the whole bound, nor count one twice", () => {
    const cache = createSplitCache(10);
    cache.set("huge", splitOf(11));
    expect(cache.get("huge")).toBeUndefined();
    cache.set("a", splitOf(6));
    cache.set("a", splitOf(6));
    cache.set("b", splitOf(4));
    expect(cache.size).toBe(2);
  });
});
