import { describe, expect, it } from "vitest";

import { isRefreshRate, refreshPeriodMs } from "@/lib/client/refresh-rate";

describe("the refresh picker's rates", () => {
  it.each([
    ["auto", 5_000, 5_000],
    ["auto", 30_000, 30_000],
    ["10s", 5_000, 10_000],
    ["5m", 5_000, 300_000],
    ["paused", 5_000, false],
  ] as const)("%s over a page's own %i ms: %s", (rate, pageMs, expected) => {
    expect(refreshPeriodMs(rate, pageMs)).toBe(expected);
  });

  it("reads back only the rates it offers", () => {
    expect(isRefreshRate("30s")).toBe(true);
    expect(isRefreshRate("2s")).toBe(false);
    expect(isRefreshRate(null)).toBe(false);
  });
});
