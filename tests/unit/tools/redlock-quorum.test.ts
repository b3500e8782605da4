import { describe, expect, it } from "vitest";

import { driftOf, isQuorumHeld, quorumOf, validityOf } from "@/tools/redis/redlock-quorum";

describe("quorumOf", () => {
  it.each([
    [1, 1],
    [3, 2],
    [5, 3],
    [4, 3],
  ])("a group of %i masters needs %i", (masters, quorum) => {
    expect(quorumOf(masters)).toBe(quorum);
  });

  it.each([0, -1, 2.5])("refuses a group of %s", (masters) => {
    expect(() => quorumOf(masters)).toThrow(/at least one master/);
  });
});

describe("validity", () => {
  it("allows 1% of the TTL plus 2 ms for drift", () => {
    expect(driftOf(6_000)).toBe(62);
    expect(driftOf(10_000, 0.02)).toBe(202);
  });

  it("is what is left of the TTL after the acquisition and the drift", () => {
    expect(validityOf(6_000, 38)).toBe(5_900);
    expect(validityOf(6_000, 6_000)).toBe(-62);
  });
});

describe("isQuorumHeld", () => {
  const base = { masters: 3, ttlMs: 6_000, elapsedMs: 10 };

  it.each([
    ["all three masters", { ...base, accepted: 3 }, true],
    ["a majority", { ...base, accepted: 2 }, true],
    ["a minority", { ...base, accepted: 1 }, false],
    ["none", { ...base, accepted: 0 }, false],
    ["a majority that answered after the TTL minus the drift", { ...base, accepted: 3, elapsedMs: 5_938 }, false],
    ["a majority that answered just within it", { ...base, accepted: 2, elapsedMs: 5_937 }, true],
    ["3 of 5", { masters: 5, ttlMs: 6_000, elapsedMs: 10, accepted: 3 }, true],
    ["2 of 5", { masters: 5, ttlMs: 6_000, elapsedMs: 10, accepted: 2 }, false],
  ])("%s: %s", (_label, result, isHeld) => {
    expect(isQuorumHeld(result)).toBe(isHeld);
  });
});
