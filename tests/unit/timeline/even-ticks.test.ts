import { describe, expect, it } from "vitest";

import { evenTicks } from "@/lib/timeline/even-ticks";

describe("evenTicks", () => {
  it.each([
    [0, { max: 1, ticks: [0, 1] }],
    [1, { max: 1, ticks: [0, 1] }],
    [3, { max: 3, ticks: [0, 1, 2, 3] }],
    [7, { max: 8, ticks: [0, 2, 4, 6, 8] }],
    [11, { max: 15, ticks: [0, 5, 10, 15] }],
    [46, { max: 50, ticks: [0, 10, 20, 30, 40, 50] }],
    [50, { max: 50, ticks: [0, 10, 20, 30, 40, 50] }],
    [101, { max: 150, ticks: [0, 50, 100, 150] }],
    [2.4, { max: 3, ticks: [0, 1, 2, 3] }],
  ])("a top of %d: %j", (value, expected) => {
    expect(evenTicks(value)).toEqual(expected);
  });

  it.each([1, 2, 9, 13, 37, 64, 99, 250, 999, 12_345])("%d: every step equal, at most 6 ticks, the top reaches the value", (value) => {
    const { max, ticks } = evenTicks(value);
    const step = ticks[1]! - ticks[0]!;
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)).toBe(max);
    expect(max).toBeGreaterThanOrEqual(value);
    expect(ticks.length).toBeLessThanOrEqual(6);
    expect(ticks.every((tick, i) => tick === i * step)).toBe(true);
    expect(Number.isInteger(step)).toBe(true);
  });
});
