import { describe, expect, it } from "vitest";

import { timeTicks } from "@/lib/timeline/time-ticks";

const T = Date.parse("2026-11-22T10:07:00.000Z");
const iso = (ticks: number[]) => ticks.map((t) => new Date(t).toISOString().slice(5, 16));

describe("time ticks", () => {
  it("picks round steps that fit: 10 minutes over an hour, an hour over 6 h, a day over 7 d", () => {
    expect(iso(timeTicks(T, T + 3_600_000, 8))).toEqual(["11-22T10:10", "11-22T10:20", "11-22T10:30", "11-22T10:40", "11-22T10:50", "11-22T11:00"]);
    expect(timeTicks(T, T + 6 * 3_600_000, 8)).toHaveLength(6);
    expect(iso(timeTicks(T, T + 7 * 86_400_000, 8))).toEqual([
      "11-23T00:00",
      "11-24T00:00",
      "11-25T00:00",
      "11-26T00:00",
      "11-27T00:00",
      "11-28T00:00",
      "11-29T00:00",
    ]);
  });

  it("aligns days to the reader's midnight", () => {
    const berlin = 60 * 60_000; // UTC+1: local midnight is 23:00 UTC
    expect(iso(timeTicks(T, T + 2 * 86_400_000, 2, berlin))).toEqual(["11-22T23:00", "11-23T23:00"]);
    expect(iso(timeTicks(T, T + 2 * 86_400_000, 4, berlin))).toEqual(["11-22T11:00", "11-22T23:00", "11-23T11:00", "11-23T23:00"]);
  });

  it("goes down to 10 seconds for a range of minutes", () => {
    expect(timeTicks(T, T + 120_000, 8).map((t) => (t - T) / 1000)).toEqual([0, 15, 30, 45, 60, 75, 90, 105, 120]);
    expect(timeTicks(T, T + 60_000, 8).map((t) => (t - T) / 1000)).toEqual([0, 10, 20, 30, 40, 50, 60]);
  });

  it("gives nothing for an empty range", () => {
    expect(timeTicks(T, T)).toEqual([]);
  });
});
