import { describe, expect, it } from "vitest";

import { offsetSpans, isValidTimeZone, wallClockToInstant, zoneOffsetMs } from "@/lib/violations/time-zone";
import { timeZoneFromCookie } from "@/lib/violations/time-zone-cookie";

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe("time zones", () => {
  it.each([
    ["UTC", "2026-07-01T12:00:00Z", 0],
    ["Europe/Berlin", "2026-07-01T12:00:00Z", 2 * HOUR],
    ["Europe/Berlin", "2026-01-01T12:00:00Z", HOUR],
    ["Asia/Kathmandu", "2026-01-01T12:00:00Z", 5.75 * HOUR],
    ["America/St_Johns", "2026-01-01T12:00:00Z", -3.5 * HOUR],
  ])("knows the offset of %s at %s", (timeZone, iso, offset) => {
    expect(zoneOffsetMs(timeZone, at(iso))).toBe(offset);
  });

  it("tells known zone names from unknown ones", () => {
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus")).toBe(false);
    expect(isValidTimeZone("")).toBe(false);
  });

  it("finds the daylight-saving change to the minute", () => {
    const spans = offsetSpans("Europe/Berlin", at("2026-10-20T00:00:00Z"), at("2026-10-30T00:00:00Z"));
    expect(spans).toEqual([
      { fromMs: at("2026-10-20T00:00:00Z"), offsetMs: 2 * HOUR },
      { fromMs: at("2026-10-25T01:00:00Z"), offsetMs: HOUR },
    ]);
    expect(zoneOffsetMs("Europe/Berlin", at("2026-10-25T00:59:59Z"))).toBe(2 * HOUR);
    expect(zoneOffsetMs("Europe/Berlin", at("2026-10-25T01:00:00Z"))).toBe(HOUR);
    expect(offsetSpans("UTC", at("2026-10-20T00:00:00Z"), at("2026-10-30T00:00:00Z"))).toHaveLength(1);
  });

  it("reads a datetime-local value in a zone, also next to daylight-saving changes", () => {
    expect(wallClockToInstant("2026-11-22T14:02", "Europe/Berlin")).toBe(at("2026-11-22T13:02:00Z"));
    expect(wallClockToInstant("2026-07-01T14:02", "Europe/Berlin")).toBe(at("2026-07-01T12:02:00Z"));
    expect(wallClockToInstant("2026-11-22T14:02", "UTC")).toBe(at("2026-11-22T14:02:00Z"));
    // 02:30 is repeated on the fall-back night: one of its two instants.
    expect([at("2026-10-25T00:30:00Z"), at("2026-10-25T01:30:00Z")]).toContain(wallClockToInstant("2026-10-25T02:30", "Europe/Berlin"));
    // 02:30 does not exist on the spring-forward night: read with an offset next to it.
    expect([at("2026-03-29T00:30:00Z"), at("2026-03-29T01:30:00Z")]).toContain(wallClockToInstant("2026-03-29T02:30", "Europe/Berlin"));
    expect(wallClockToInstant("not a time", "UTC")).toBeNaN();
  });

  it("takes the reader's zone from the cookie only when it names a valid one", () => {
    expect(timeZoneFromCookie("Europe%2FBerlin")).toBe("Europe/Berlin");
    expect(timeZoneFromCookie(undefined)).toBe("UTC");
    expect(timeZoneFromCookie("Nowhere%2FLand")).toBe("UTC");
    expect(timeZoneFromCookie("%E0%A4%A")).toBe("UTC");
  });
});
