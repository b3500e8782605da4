import { describe, expect, it } from "vitest";

import { parseInstant, parseTimestamp } from "@/lib/ingest/timestamp";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("parseTimestamp", () => {
  it("reads toISOString's form (its fast path) as the same instant as the offset form", () => {
    let state = 7;
    for (let i = 0; i < 2_000; i++) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      const ms = Date.UTC(2000, 0, 1) + Math.floor((state / 2 ** 31) * (NOW - Date.UTC(2000, 0, 1)));
      const iso = new Date(ms).toISOString();
      expect(parseTimestamp(iso, NOW)).toEqual({ isValid: true, ms });
      expect(parseTimestamp(iso.replace("Z", "+00:00"), NOW)).toEqual({ isValid: true, ms });
    }
  });

  it.each([
    ["2026-11-22T10:15:30Z", Date.UTC(2026, 10, 22, 10, 15, 30)],
    ["2026-11-22T10:15:30.123Z", Date.UTC(2026, 10, 22, 10, 15, 30, 123)],
    ["2026-11-22t10:15:30.1z", Date.UTC(2026, 10, 22, 10, 15, 30, 100)],
    ["2026-11-22 10:15:30.123456789+00:00", Date.UTC(2026, 10, 22, 10, 15, 30, 123)],
    ["2026-11-22T12:15:30+02:00", Date.UTC(2026, 10, 22, 10, 15, 30)],
    ["2026-11-22T05:45:30-04:30", Date.UTC(2026, 10, 22, 10, 15, 30)],
    ["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29)],
    [Date.UTC(2026, 10, 22, 10, 15, 30, 123), Date.UTC(2026, 10, 22, 10, 15, 30, 123)],
  ])("accepts %j", (input, expected) => {
    expect(parseTimestamp(input, NOW)).toEqual({ isValid: true, ms: expected });
  });

  it.each([
    ["2025-02-29T00:00:00Z", /RFC 3339/],
    // toISOString's own form, read by the fast path: the same checks.
    ["2025-02-29T00:00:00.000Z", /RFC 3339/],
    ["2026-04-31T00:00:00.000Z", /RFC 3339/],
    ["2026-13-01T00:00:00.000Z", /RFC 3339/],
    ["2026-00-01T00:00:00.000Z", /RFC 3339/],
    ["2026-11-22T24:00:00.000Z", /RFC 3339/],
    ["2026-11-22T10:60:00.000Z", /RFC 3339/],
    ["2026-11-22T10:15:60.000Z", /RFC 3339/],
    ["2026-11-22T10:15:3x.000Z", /RFC 3339/],
    ["2026-11-22T10:15:30.000+", /RFC 3339/],
    ["1999-12-31T23:59:59.999Z", /before 2000/],
    ["2026-02-30T00:00:00Z", /RFC 3339/],
    ["2026-13-01T00:00:00Z", /RFC 3339/],
    ["2026-11-22T24:00:00Z", /RFC 3339/],
    ["2026-11-22T10:60:00Z", /RFC 3339/],
    ["2026-11-22T10:15:60Z", /RFC 3339/],
    ["2026-11-22T10:15:30", /RFC 3339/],
    ["2026-11-22T10:15:30+2:00", /RFC 3339/],
    ["2026-11-22T10:15:30+24:00", /RFC 3339/],
    ["2026-11-22", /RFC 3339/],
    ["yesterday", /RFC 3339/],
    ["", /RFC 3339/],
    ["2026-11-24T12:00:01Z", /future/],
    [NOW + 24 * 3600_000 + 1, /future/],
    [1_732_233_600, /seconds/],
    ["1999-12-31T23:59:59Z", /before 2000/],
    [1.5e12 + 0.5, /integer/],
    [Number.MAX_VALUE, /integer/],
    [true, /RFC 3339 string or a number/],
    [null, /RFC 3339 string or a number/],
    [{}, /RFC 3339 string or a number/],
  ])("rejects %j", (input, message) => {
    const parsed = parseTimestamp(input, NOW);
    expect(parsed.isValid).toBe(false);
    if (!parsed.isValid) expect(parsed.message).toMatch(message);
  });

  it("accepts up to one day ahead", () => {
    expect(parseTimestamp(NOW + 24 * 3600_000, NOW).isValid).toBe(true);
  });
});

describe("parseInstant", () => {
  it("takes digits as epoch milliseconds and RFC 3339 strings, without range checks", () => {
    expect(parseInstant("1764000000000")).toBe(1_764_000_000_000);
    expect(parseInstant("2030-01-01T00:00:00Z")).toBe(Date.UTC(2030, 0, 1));
    expect(parseInstant("2030-02-30T00:00:00Z")).toBeNull();
    expect(parseInstant("soon")).toBeNull();
  });
});
