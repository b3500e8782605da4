import { describe, expect, it } from "vitest";

import { rememberRound, SCRAPE_ROUNDS_REMEMBERED, scrapePeriodMs } from "@/lib/sources/pulsar/consumer-signal/scrape-period";

/** The periods a signal would wait after each round of `roundsMs`, as its loop computes them. */
function periodsFor(roundsMs: number[], intervalMs: number): number[] {
  let recent: number[] = [];
  return roundsMs.map((roundMs) => {
    recent = rememberRound(recent, roundMs);
    return scrapePeriodMs(recent, intervalMs);
  });
}

describe("scrapePeriodMs", () => {
  it("is the interval while scrapes take under half of it, and before any round", () => {
    expect(scrapePeriodMs([], 1_000)).toBe(1_000);
    expect(periodsFor([120, 300, 480], 1_000)).toEqual([1_000, 1_000, 1_000]);
  });

  it("spreads one slow round over the next five periods instead of doubling the next one", () => {
    // A broker of 10,000 partitions: 2.3 s a render, once 4.2 s (docs/scale.md).
    const periods = periodsFor([2_300, 2_300, 2_300, 2_300, 2_300, 4_200, 2_300, 2_300, 2_300, 2_300, 2_300, 2_300], 1_000);
    expect(periods.slice(0, 5)).toEqual([4_600, 4_600, 4_600, 4_600, 4_600]);
    expect(periods.slice(5, 10)).toEqual([5_360, 5_360, 5_360, 5_360, 5_360]);
    expect(periods[10]).toBe(4_600);
    expect(Math.max(...periods)).toBeLessThan(2 * 4_200);
  });

  it("follows a broker that stays slow within five rounds", () => {
    const periods = periodsFor([1_000, 1_000, 1_000, 1_000, 1_000, 4_000, 4_000, 4_000, 4_000, 4_000], 1_000);
    expect(periods.at(-1)).toBe(8_000);
  });

  it("keeps a broker rendering at most half of the time: the periods sum to twice the rounds, but for the last rounds' share", () => {
    // Render times that swing between 0.4 and 6 s, deterministically.
    const roundsMs = Array.from({ length: 400 }, (_, n) => 400 + ((n * 7_919) % 5_600));
    const periods = periodsFor(roundsMs, 1_000);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const tailMs = sum(roundsMs.slice(-(SCRAPE_ROUNDS_REMEMBERED - 1)));
    expect(sum(periods)).toBeGreaterThanOrEqual(2 * (sum(roundsMs) - tailMs));
    // and every period is at least the interval
    expect(Math.min(...periods)).toBeGreaterThanOrEqual(1_000);
  });
});

describe("rememberRound", () => {
  it("keeps the latest rounds, oldest first, and drops the oldest past the limit", () => {
    let recent: number[] = [];
    for (let round = 1; round <= SCRAPE_ROUNDS_REMEMBERED + 2; round++) recent = rememberRound(recent, round);
    expect(recent).toEqual([3, 4, 5, 6, 7]);
  });
});
