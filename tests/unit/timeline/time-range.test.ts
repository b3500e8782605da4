import { describe, expect, it } from "vitest";

import { fitRangeToData, hasRangeParam, isLiveRange, MAX_RANGE_MS, readRangeSelection, resolveRange, writeRangeSelection } from "@/lib/timeline/time-range";

const NOW = Date.parse("2026-11-22T12:00:00.000Z");

describe("time ranges", () => {
  it.each([
    [{}, { preset: "6h" }],
    [{ range: "1h" }, { preset: "1h" }],
    [{ range: "7d" }, { preset: "7d" }],
    [{ range: "2y" }, { preset: "6h" }],
    [
      { range: "custom", from: "2026-11-20T00:00:00Z", to: "2026-11-21T00:00:00Z" },
      { preset: "custom", from: "2026-11-20T00:00:00.000Z", to: "2026-11-21T00:00:00.000Z" },
    ],
    [{ range: "custom", from: "2026-11-21T00:00:00Z", to: "2026-11-20T00:00:00Z" }, { preset: "6h" }],
    [{ range: "custom", from: "yesterday" }, { preset: "6h" }],
  ])("reads %o as %o", (params, expected) => {
    expect(readRangeSelection(params)).toEqual(expected);
  });

  it("resolves presets against now and keeps custom ranges fixed (and bounded)", () => {
    expect(resolveRange({ preset: "24h" }, NOW)).toEqual({ fromMs: NOW - 86_400_000, toMs: NOW });
    expect(resolveRange({ preset: "custom", from: "2026-01-01T00:00:00.000Z", to: "2026-11-01T00:00:00.000Z" }, NOW)).toEqual({
      fromMs: Date.parse("2026-11-01T00:00:00.000Z") - MAX_RANGE_MS,
      toMs: Date.parse("2026-11-01T00:00:00.000Z"),
    });
    expect(isLiveRange({ preset: "1h" })).toBe(true);
    expect(isLiveRange({ preset: "custom", from: "a", to: "b" })).toBe(false);
  });

  it("writes back what it reads", () => {
    const custom = { preset: "custom" as const, from: "2026-11-20T00:00:00.000Z", to: "2026-11-21T00:00:00.000Z" };
    expect(readRangeSelection(writeRangeSelection(custom))).toEqual(custom);
    expect(writeRangeSelection({ preset: "7d" })).toEqual({ range: "7d" });
  });

  it("writes back a since range, which is live and ends now", () => {
    const since = { preset: "since" as const, from: "2026-11-22T11:50:00.000Z" };
    expect(readRangeSelection(writeRangeSelection(since))).toEqual(since);
    expect(resolveRange(since, NOW)).toEqual({ fromMs: Date.parse(since.from), toMs: NOW });
    expect(isLiveRange(since)).toBe(true);
    expect(hasRangeParam({})).toBe(false);
    expect(hasRangeParam({ range: "since", from: since.from })).toBe(true);
  });
});

describe("fitRangeToData: one rule for every page's default range", () => {
  const MINUTE = 60_000;
  it.each([
    ["no data at all", null, { preset: "6h" }],
    ["data 5 min old: from 30 s before it", NOW - 5 * MINUTE, { preset: "since", from: new Date(NOW - 5 * MINUTE - 30_000).toISOString() }],
    ["data 2 h old: a tenth of its age before it", NOW - 120 * MINUTE, { preset: "since", from: new Date(NOW - 132 * MINUTE).toISOString() }],
    ["data 6 h old: still from its start", NOW - 360 * MINUTE, { preset: "since", from: new Date(NOW - 396 * MINUTE).toISOString() }],
    ["data 22 h old: with its margin past 24 h, so 24 h", NOW - 22 * 60 * MINUTE, { preset: "24h" }],
    ["data 3 days old: clamped to the longest fitted preset", NOW - 3 * 1_440 * MINUTE, { preset: "24h" }],
    ["data stamped ahead of this clock: from 30 s before now", NOW + MINUTE, { preset: "since", from: new Date(NOW - 30_000).toISOString() }],
  ])("%s", (_name, oldest, expected) => {
    expect(fitRangeToData(oldest, NOW)).toEqual(expected);
  });

  it.each([3, 45, 300, 1_200])("data %i min old fills most of the chart", (minutes) => {
    const oldest = NOW - minutes * MINUTE;
    const { fromMs, toMs } = resolveRange(fitRangeToData(oldest, NOW), NOW);
    expect((toMs - oldest) / (toMs - fromMs)).toBeGreaterThan(0.8);
  });
});
