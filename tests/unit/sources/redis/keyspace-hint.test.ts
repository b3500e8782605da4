import { describe, expect, it } from "vitest";

import { kindOfKeyspaceEvent } from "@/lib/sources/redis/keyspace-hint";

// Redis's keyspace events in the hold hints' vocabulary: the events seen on Redis 7.0 with
// `K$gx` (+`h`) for SET NX PX, PEXPIRE, DEL, expiry, and Redisson's hash commands.

describe("kindOfKeyspaceEvent", () => {
  it.each([
    ["del", "release"],
    ["unlink", "release"],
    ["hdel", "release"],
    ["expired", "expiry"],
    ["evicted", "expiry"],
    ["set", "change"],
    ["expire", "change"],
    ["pexpire", "change"],
    ["hset", "change"],
    ["hincrby", "change"],
  ] as const)("`%s` is a %s", (event, kind) => {
    expect(kindOfKeyspaceEvent(event)).toBe(kind);
  });

  it("an invalidation from client tracking, which names no event, is a change", () => {
    expect(kindOfKeyspaceEvent(null)).toBe("change");
  });
});
