import { describe, expect, it } from "vitest";

import { formatIsoMs, isoOrNull } from "@/lib/board/iso-time";

describe("ISO time without a Date", () => {
  it("writes exactly what toISOString writes", () => {
    const samples = [
      0,
      1,
      999,
      86_399_999,
      951_782_400_000,
      1_709_164_800_000,
      1_795_311_499_784,
      Date.parse("2026-12-31T23:59:59.999Z"),
      Date.parse("2028-02-29T12:00:00.050Z"),
    ];
    for (let ms = 1_700_000_000_000; ms < 1_900_000_000_000; ms += 987_654_321_7) samples.push(ms);
    for (const ms of samples) expect(formatIsoMs(ms)).toBe(new Date(ms).toISOString());
  });

  it("falls back to Date outside four-digit years, and passes null through", () => {
    expect(formatIsoMs(-62_198_755_200_000)).toBe(new Date(-62_198_755_200_000).toISOString());
    expect(isoOrNull(null)).toBeNull();
  });
});
