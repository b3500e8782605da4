import { describe, expect, it } from "vitest";

import { fullTtlMs, ttlTermOf } from "@/lib/board/ttl-terms";

describe("one TTL term per lock kind, with its source", () => {
  it.each([
    ["redis", {}, "TTL", /PTTL/],
    ["redis", { redlock: true }, "TTL", /masters that hold it/],
    ["zookeeper", {}, "Session timeout", /session/],
    ["etcd", {}, "Lease", /etcd lease/],
    ["dynamodb", {}, "Lease", /leaseDuration/],
    ["kubernetes", {}, "Lease", /leaseDurationSeconds/],
    ["consul", {}, "TTL", /source reports/],
  ])("%s %j: %s", (kind, details, term, source) => {
    expect(ttlTermOf(kind, details)).toEqual({ term, source: expect.stringMatching(source) });
  });

  it("gives the figure the holder set (the longest TTL read this hold), not a reading that has run down", () => {
    expect(fullTtlMs({ ttlMs: 4_000, stats: { tenureMaxTtlMs: 6_000 } })).toBe(6_000);
    expect(fullTtlMs({ ttlMs: 4_000, stats: { tenureMaxTtlMs: null } })).toBe(4_000);
    expect(fullTtlMs({ ttlMs: null, stats: { tenureMaxTtlMs: null } })).toBeNull();
  });
});
