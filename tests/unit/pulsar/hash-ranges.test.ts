import { describe, expect, it } from "vitest";

import { signHashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { buildHashRangeSplit, computeShares, findHashRangeProblems, parseConsumerRanges } from "@/lib/pulsar/hash-ranges";

describe("Key_Shared hash ranges", () => {
  it("parses the 4.x arrays and the 3.x strings to the same shape", () => {
    expect(
      parseConsumerRanges({
        keyHashRangeArrays: [
          [0, 99],
          [200, 299],
        ],
      }),
    ).toEqual([
      [0, 99],
      [200, 299],
    ]);
    expect(parseConsumerRanges({ keyHashRanges: ["[1537162495, 1538024394]", "[0, 5]", "garbage"] })).toEqual([
      [1537162495, 1538024394],
      [0, 5],
    ]);
    expect(parseConsumerRanges({})).toBeNull();
  });

  it("tells the 4.x 0..65535 space from the 3.x 0..2^31-2 space", () => {
    expect(buildHashRangeSplit([{ name: "a", ranges: [[0, 65535]] }])!.space).toBe(65536);
    expect(buildHashRangeSplit([{ name: "a", ranges: [[0, 2147483646]] }])!.space).toBe(2147483647);
    expect(buildHashRangeSplit([{ name: "a", ranges: null }])).toBeNull();
  });

  it("keeps an auto-split selector's ranges (the last ending at 65,536) in the small space, shares summing to 1", () => {
    const split = buildHashRangeSplit([
      { name: "a", ranges: [[0, 32768]] },
      { name: "b", ranges: [[32769, 65536]] },
    ])!;
    expect(split.space).toBe(65536);
    const shares = computeShares(split);
    expect(shares.a! + shares.b!).toBeCloseTo(1, 12);
    expect(findHashRangeProblems(split)).toEqual({ gaps: [], overlaps: [] });
  });

  it("computes each consumer's share of the space", () => {
    const split = buildHashRangeSplit([
      {
        name: "a",
        ranges: [
          [0, 16383],
          [49152, 65535],
        ],
      },
      { name: "b", ranges: [[16384, 49151]] },
    ])!;
    expect(computeShares(split)).toEqual({ a: 0.5, b: 0.5 });
  });

  it("finds gaps and overlaps, and none in a clean split", () => {
    const clean = buildHashRangeSplit([
      { name: "a", ranges: [[0, 30000]] },
      { name: "b", ranges: [[30001, 65535]] },
    ])!;
    expect(findHashRangeProblems(clean)).toEqual({ gaps: [], overlaps: [] });

    const broken = buildHashRangeSplit([
      { name: "a", ranges: [[0, 30000]] },
      { name: "b", ranges: [[29000, 40000]] },
      { name: "c", ranges: [[50000, 65000]] },
    ])!;
    expect(findHashRangeProblems(broken)).toEqual({
      gaps: [
        [40001, 49999],
        [65001, 65535],
      ],
      overlaps: [[29000, 30000]],
    });
  });

  it("accepts a 4.x split that starts at hash 1", () => {
    const split = buildHashRangeSplit([
      { name: "a", ranges: [[1, 40000]] },
      { name: "b", ranges: [[40001, 65535]] },
    ])!;
    expect(findHashRangeProblems(split).gaps).toEqual([]);
  });

  it("signs equal splits equally whatever the consumer order", () => {
    const a = buildHashRangeSplit([
      { name: "a", ranges: [[0, 1]] },
      { name: "b", ranges: [[2, 3]] },
    ]);
    const b = buildHashRangeSplit([
      { name: "b", ranges: [[2, 3]] },
      { name: "a", ranges: [[0, 1]] },
    ]);
    expect(signHashRangeSplit(a)).toBe(signHashRangeSplit(b));
    expect(signHashRangeSplit(a)).not.toBe(
      signHashRangeSplit(
        buildHashRangeSplit([
          { name: "a", ranges: [[0, 2]] },
          { name: "b", ranges: [[3, 3]] },
        ]),
      ),
    );
  });
});
