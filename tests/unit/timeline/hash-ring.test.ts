import { describe, expect, it } from "vitest";

import { buildHashRing } from "@/lib/timeline/hash-ring";

describe("hash ring", () => {
  it("covers the space in order with each owner's stretches", () => {
    const slices = buildHashRing({
      space: 65_536,
      consumers: [
        {
          consumer: "a",
          ranges: [
            [0, 16383],
            [49152, 65535],
          ],
        },
        { consumer: "b", ranges: [[16384, 49151]] },
      ],
    });
    expect(slices.map((s) => [s.start, s.end, s.owners])).toEqual([
      [0, 16383, ["a"]],
      [16384, 49151, ["b"]],
      [49152, 65535, ["a"]],
    ]);
    expect(slices.reduce((sum, s) => sum + s.size, 0)).toBe(65_536);
  });

  it("shows gaps as ownerless and overlaps with both owners", () => {
    const slices = buildHashRing({
      space: 65_536,
      consumers: [
        { consumer: "a", ranges: [[0, 30000]] },
        { consumer: "b", ranges: [[29000, 40000]] },
      ],
    });
    expect(slices.map((s) => [s.start, s.end, s.owners])).toEqual([
      [0, 28999, ["a"]],
      [29000, 30000, ["a", "b"]],
      [30001, 40000, ["b"]],
      [40001, 65535, []],
    ]);
  });

  it("merges adjacent ranges of one owner, and gives hash 0 to a split that starts at 1 (4.x)", () => {
    const slices = buildHashRing({
      space: 65_536,
      consumers: [
        {
          consumer: "a",
          ranges: [
            [1, 100],
            [101, 200],
          ],
        },
        { consumer: "b", ranges: [[201, 65535]] },
      ],
    });
    expect(slices.map((s) => [s.start, s.end, s.owners])).toEqual([
      [0, 200, ["a"]],
      [201, 65535, ["b"]],
    ]);
  });
});
