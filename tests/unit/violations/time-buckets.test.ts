import { describe, expect, it } from "vitest";

import { bucketIndexOf, buildBuckets, chooseBucketMs, MAX_BUCKETS, minuteWindow } from "@/lib/violations/time-buckets";
import { zoneOffsetMs } from "@/lib/violations/time-zone";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);

/** The rule by definition: a boundary wherever the local bucket of this minute differs from the previous minute's. */
function referenceBoundaries(fromMs: number, toMs: number, bucketMs: number, timeZone: string): number[] {
  const index = (t: number) => Math.floor((t + zoneOffsetMs(timeZone, t)) / bucketMs);
  const out: number[] = [];
  for (let t = fromMs; t < toMs; t += MINUTE) if (index(t) !== index(t - MINUTE)) out.push(t);
  return out;
}

describe("chooseBucketMs", () => {
  it.each([
    ["1 h", HOUR, MINUTE],
    ["6 h", 6 * HOUR, 2 * MINUTE],
    ["24 h", DAY, 10 * MINUTE],
    ["7 d", 7 * DAY, HOUR],
    ["30 d", 30 * DAY, 3 * HOUR],
    ["31 d", 31 * DAY, 6 * HOUR],
    ["5 minutes", 5 * MINUTE, MINUTE],
  ])("picks the smallest size within %s that keeps the bars at most MAX_BUCKETS", (_label, range, expected) => {
    expect(chooseBucketMs(range)).toBe(expected);
    expect(Math.ceil(range / expected)).toBeLessThanOrEqual(MAX_BUCKETS);
  });

  it("falls back to a day for ranges longer than the sizes cover", () => {
    expect(chooseBucketMs(400 * DAY)).toBe(DAY);
  });
});

describe("minuteWindow", () => {
  it("covers every minute the range touches", () => {
    expect(minuteWindow(at("2026-11-22T10:00:30Z"), at("2026-11-22T11:00:10Z"))).toEqual({
      startMs: at("2026-11-22T10:00:00Z"),
      endMs: at("2026-11-22T11:01:00Z"),
    });
    expect(minuteWindow(at("2026-11-22T10:00:00Z"), at("2026-11-22T11:00:00Z"))).toEqual({
      startMs: at("2026-11-22T10:00:00Z"),
      endMs: at("2026-11-22T11:00:00Z"),
    });
  });
});

describe("buildBuckets", () => {
  it("cuts the first and last bucket to the range and marks them partial, as well as the bucket still running", () => {
    const buckets = buildBuckets({
      fromMs: at("2026-11-22T10:07:00Z"),
      toMs: at("2026-11-22T10:52:30Z"),
      bucketMs: 10 * MINUTE,
      timeZone: "UTC",
      nowMs: at("2026-11-22T10:52:30Z"),
    });
    expect(buckets.map((b) => [new Date(b.start).toISOString().slice(11, 16), new Date(b.end).toISOString().slice(11, 16), b.isPartial])).toEqual([
      ["10:07", "10:10", true],
      ["10:10", "10:20", false],
      ["10:20", "10:30", false],
      ["10:30", "10:40", false],
      ["10:40", "10:50", false],
      ["10:50", "10:53", true],
    ]);
  });

  it("returns no bucket for an empty range", () => {
    expect(buildBuckets({ fromMs: at("2026-11-22T10:00:00Z"), toMs: at("2026-11-22T10:00:00Z"), bucketMs: MINUTE, timeZone: "UTC", nowMs: 0 })).toEqual([]);
  });

  it("aligns hours to the local wall clock in a +05:45 zone", () => {
    const buckets = buildBuckets({
      fromMs: at("2026-11-22T00:00:00Z"),
      toMs: at("2026-11-23T00:00:00Z"),
      bucketMs: 3 * HOUR,
      timeZone: "Asia/Kathmandu",
      nowMs: 0,
    });
    // 00:00 local is 18:15 UTC the day before; bucket boundaries fall at 03:00, 06:00 ... local.
    expect(new Date(buckets[1]!.start).toISOString()).toBe("2026-11-22T00:15:00.000Z");
    expect(buckets.slice(1, -1).every((b) => b.end - b.start === 3 * HOUR)).toBe(true);
  });

  it("is the same in UTC and in any whole-hour zone for buckets of an hour or less", () => {
    const input = { fromMs: at("2026-11-20T00:00:00Z"), toMs: at("2026-11-27T00:00:00Z"), bucketMs: HOUR, nowMs: 0 };
    expect(buildBuckets({ ...input, timeZone: "America/New_York" })).toEqual(buildBuckets({ ...input, timeZone: "UTC" }));
  });

  it.each([
    ["Berlin, spring forward", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z"],
    ["Berlin, fall back", "Europe/Berlin", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z"],
    ["New York, fall back", "America/New_York", "2026-10-31T12:00:00Z", "2026-11-02T12:00:00Z"],
    ["Lord Howe, 30-minute shift", "Australia/Lord_Howe", "2026-04-04T00:00:00Z", "2026-04-06T00:00:00Z"],
  ])("puts boundaries exactly where the local bucket changes across daylight saving (%s)", (_label, timeZone, from, to) => {
    for (const bucketMs of [30 * MINUTE, HOUR, 3 * HOUR, DAY]) {
      const buckets = buildBuckets({ fromMs: at(from), toMs: at(to), bucketMs, timeZone, nowMs: 0 });
      const starts = buckets.slice(1).map((b) => b.start);
      expect(starts).toEqual(referenceBoundaries(at(from) + MINUTE, at(to), bucketMs, timeZone));
      // The buckets tile the range without gaps or overlaps.
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.start).toBe(buckets[i - 1]!.end);
    }
  });

  it("makes the day of a spring-forward jump 23 hours long and the fall-back day 25", () => {
    const spring = buildBuckets({ fromMs: at("2026-03-28T23:00:00Z"), toMs: at("2026-03-30T22:00:00Z"), bucketMs: DAY, timeZone: "Europe/Berlin", nowMs: 0 });
    expect(spring.map((b) => (b.end - b.start) / HOUR)).toEqual([23, 24]);
    const fall = buildBuckets({ fromMs: at("2026-10-24T22:00:00Z"), toMs: at("2026-10-26T23:00:00Z"), bucketMs: DAY, timeZone: "Europe/Berlin", nowMs: 0 });
    expect(fall.map((b) => (b.end - b.start) / HOUR)).toEqual([25, 24]);
  });
});

describe("bucketIndexOf", () => {
  const buckets = buildBuckets({ fromMs: at("2026-11-22T10:00:00Z"), toMs: at("2026-11-22T11:00:00Z"), bucketMs: 10 * MINUTE, timeZone: "UTC", nowMs: 0 });
  it.each([
    ["the first instant", "2026-11-22T10:00:00.000Z", 0],
    ["the last millisecond of a bucket", "2026-11-22T10:09:59.999Z", 0],
    ["a bucket's start", "2026-11-22T10:10:00.000Z", 1],
    ["the last bucket", "2026-11-22T10:59:59.999Z", 5],
    ["before the range", "2026-11-22T09:59:59.999Z", -1],
    ["the range's end (exclusive)", "2026-11-22T11:00:00.000Z", -1],
  ])("finds %s", (_label, iso, index) => {
    expect(bucketIndexOf(buckets, at(iso))).toBe(index);
  });
});
