import { describe, expect, it } from "vitest";

import { formatBucketSize, formatCount, formatDuration, formatInstant, formatMinute, formatOffset, formatTick } from "@/lib/violations/format";
import { buildTraceUrl } from "@/lib/violations/trace-url";

const AT = Date.parse("2026-11-22T13:02:07.045Z");

describe("formatting", () => {
  it("writes instants in the given zone, to the millisecond", () => {
    expect(formatInstant(AT, "UTC")).toBe("2026-11-22 13:02:07.045");
    expect(formatInstant("2026-11-22T13:02:07.045Z", "Asia/Kathmandu")).toBe("2026-11-22 18:47:07.045");
    expect(formatInstant(AT, "America/New_York")).toBe("2026-11-22 08:02:07.045");
    expect(formatMinute(AT, "Europe/Berlin")).toBe("2026-11-22 14:02");
  });

  it("writes axis ticks by bucket size and span", () => {
    expect(formatTick(AT, 60_000, 3_600_000, "UTC")).toBe("13:02");
    expect(formatTick(AT, 3_600_000, 7 * 86_400_000, "UTC")).toBe("22 Nov 13:02");
    expect(formatTick(AT, 86_400_000, 31 * 86_400_000, "UTC")).toBe("22 Nov");
  });

  it.each([
    [250, "250 ms"],
    [4_200, "4.2 s"],
    [42_000, "42 s"],
    [185_000, "3 m 5 s"],
    [300_000, "5 m"],
    [7_800_000, "2 h 10 m"],
    [3 * 86_400_000 + 4 * 3_600_000, "3 d 4 h"],
  ])("writes %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("writes offsets, counts and bucket sizes", () => {
    expect(formatOffset(-3_200)).toBe("3.2 s before");
    expect(formatOffset(12_000)).toBe("12 s after");
    expect(formatOffset(0)).toBe("at the same moment");
    expect(formatCount(1234567)).toBe("1,234,567");
    expect([60_000, 600_000, 3_600_000, 10_800_000, 86_400_000].map(formatBucketSize)).toEqual(["1 minute", "10 minutes", "1 hour", "3 hours", "1 day"]);
  });

  it("builds trace links from the template, encoding the id", () => {
    expect(buildTraceUrl("https://tempo.example/trace/{traceId}", "4bf92f35")).toBe("https://tempo.example/trace/4bf92f35");
    expect(buildTraceUrl("https://jaeger.example/search?traceID={traceId}&x={traceId}", "a b/c")).toBe(
      "https://jaeger.example/search?traceID=a%20b%2Fc&x=a%20b%2Fc",
    );
    expect(buildTraceUrl(null, "4bf92f35")).toBeNull();
  });
});
