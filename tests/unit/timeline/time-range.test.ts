import { describe, expect, it } from "vitest";

import { isLiveRange, MAX_RANGE_MS, readRangeSelection, resolveRange, writeRangeSelection } from "@/lib/timeline/time-range";

const NOW = Date.parse("2026-11-22T12:00:00.000Z");

describe("time ranges", () => {
  it.each([
    [{}, { preset: "6h" }],
    [{ range: "1h" }, { preset: "1h" }],
    [{ range: "7d" }, { preset: "7d" }],
    [{ range: "2y" }, { preset: "6h" }],
    [{ range: "custom", from: "2026-11-20T00:00:00Z", to: "2026-11-21T00:00:00Z" }, { preset: "custom", from: "2026-11-20T00:00:00.000Z", to: "2026-11-21T00:00:00.000Z" }],
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
});
