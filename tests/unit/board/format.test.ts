import { describe, expect, it } from "vitest";

import {
  formatAgo,
  formatClock,
  formatCount,
  formatDuration,
  formatAxisTime,
  formatExactTime,
  formatShare,
  formatZonedTime,
  formatTenure,
  formatWindow,
} from "@/lib/board/format";

const NOW = Date.parse("2026-11-22T17:14:30.000Z");

describe("board formatting", () => {
  it.each([
    [0, "0 s"],
    [42_400, "42 s"],
    [60_000, "1 m"],
    [725_000, "12 m 5 s"],
    [3 * 3_600_000 + 12 * 60_000 + 9_000, "3 h 12 m"],
    [7_200_000, "2 h"],
    [2 * 86_400_000 + 4 * 3_600_000, "2 d 4 h"],
    [-5_000, "0 s"],
  ])("formats %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("writes tenures as the issue asks: since 14:02, 3 h 12 m", () => {
    expect(formatTenure("2026-11-22T14:02:00.000Z", NOW, "UTC")).toBe("since 14:02, 3 h 12 m");
    expect(formatClock("2026-11-21T23:50:00.000Z", NOW, "UTC")).toBe("21 Nov 23:50");
    expect(formatClock("2026-11-22T14:02:00.000Z", NOW, "Europe/Berlin")).toBe("15:02");
  });

  it("writes exact times to the millisecond, ago, counts, shares and windows", () => {
    expect(formatExactTime("2026-11-22T14:02:07.045Z", "UTC")).toBe("2026-11-22 14:02:07.045");
    expect(formatZonedTime("2026-11-22T14:02:07.045Z", "UTC")).toBe("2026-11-22 14:02:07 UTC");
    const at = Date.parse("2026-11-22T14:02:30Z");
    expect(formatAxisTime(at, 3 * 60_000, at, "UTC")).toBe("14:02:30");
    expect(formatAxisTime(at, 60 * 60_000, at, "UTC")).toBe("14:02");
    expect(formatZonedTime("2026-11-22T14:02:07.045Z", "America/New_York")).toBe("2026-11-22 09:02:07 EST");
    expect(formatZonedTime("2026-07-22T14:02:07.045Z", "Asia/Tokyo")).toBe("2026-07-22 23:02:07 GMT+9");
    expect(formatAgo("2026-11-22T17:14:29.500Z", NOW)).toBe("just now");
    expect(formatAgo("2026-11-22T17:10:30.000Z", NOW)).toBe("4 m ago");
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(null)).toBe("?");
    // Whole numbers are grouped without Intl, the same way Intl groups them.
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, -1_234_567, 9_007_199_254_740_991]) expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
    expect(formatCount(1234.5)).toBe("1,234.5");
    expect(formatShare(1 / 3)).toBe("33.3%");
    expect(formatWindow(600_000)).toBe("10 min");
    expect(formatWindow(3_600_000)).toBe("1 h");
  });
});
