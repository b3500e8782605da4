import { describe, expect, it } from "vitest";

import { splitBySize } from "@/lib/retention/split-by-size";

const table = (name: string, bytes: number) => ({ name, bytes });
const names = (lists: { name: string }[][]) => lists.map((list) => list.map((t) => t.name));
const totals = (lists: { bytes: number }[][]) => lists.map((list) => list.reduce((sum, t) => sum + t.bytes, 0));

describe("splitting tables to drop at once", () => {
  it("gives each list about the same bytes, the biggest table first", () => {
    const day = [table("h00", 100), table("h01", 300), table("h02", 200), table("h03", 250), table("violations", 10)];
    expect(names(splitBySize(day, 2))).toEqual([
      ["h01", "h00", "violations"],
      ["h03", "h02"],
    ]);
    expect(totals(splitBySize(day, 2))).toEqual([410, 450]);
  });

  it("keeps every table exactly once", () => {
    const hours = Array.from({ length: 25 }, (_, i) => table(`h${i}`, 1_000 + ((i * 37) % 11) * 100));
    const lists = splitBySize(hours, 4);
    expect(lists).toHaveLength(4);
    expect(
      lists
        .flat()
        .map((t) => t.name)
        .sort(),
    ).toEqual(hours.map((t) => t.name).sort());
    const sums = totals(lists);
    expect(Math.max(...sums) - Math.min(...sums)).toBeLessThanOrEqual(2_000);
  });

  it("makes no more lists than tables, and none for nothing", () => {
    expect(names(splitBySize([table("only", 5)], 4))).toEqual([["only"]]);
    expect(splitBySize([], 4)).toEqual([]);
  });
});
