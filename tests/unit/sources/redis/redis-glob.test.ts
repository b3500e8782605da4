import { describe, expect, it } from "vitest";

import { keySlot } from "@/lib/sources/redis/key-slot";
import { globToRegExp, isMatchEverything, literalKey, literalPrefix } from "@/lib/sources/redis/redis-glob";
import { trackingPrefixes, hasKeyspaceNotifications } from "@/lib/sources/redis/watch-lock-keys";

describe("Redis globs", () => {
  it.each([
    ["lock:*", "lock:daily-job", true],
    ["lock:*", "locks:x", false],
    ["{app}:leader", "{app}:leader", true],
    ["job-lock:?:x", "job-lock:a:x", true],
    ["job-lock:[ab]:x", "job-lock:c:x", false],
    ["job-lock:[^ab]:x", "job-lock:c:x", true],
    ["lock\\*", "lock*", true],
    ["lock\\*", "lockx", false],
    ["a.b*", "axb", false],
  ])("%s matches %s: %s", (glob, key, expected) => {
    expect(globToRegExp(glob).test(key)).toBe(expected);
  });

  it("finds literal prefixes and patterns that match everything", () => {
    expect(literalPrefix("lock:*")).toBe("lock:");
    expect(literalPrefix("*:leader")).toBe("");
    expect(literalPrefix("{app}:leader")).toBe("{app}:leader");
    expect(literalKey("lock\\*")).toBe("lock*");
    expect(["*", "**", "?*", "[a-z]*"].map(isMatchEverything)).toEqual([true, true, true, true]);
    expect(isMatchEverything("*:leader")).toBe(false);
  });

  it("drops tracking prefixes inside others", () => {
    const pattern = (match: string) => ({ match, layout: "token" as const, mustBeHeld: false });
    expect(trackingPrefixes([pattern("lock:job:*"), pattern("lock:*"), pattern("*:leader"), pattern("rl:*")])).toEqual(["lock:", "rl:"]);
  });

  it("reads notify-keyspace-events flags", () => {
    const token = [{ match: "lock:*", layout: "token" as const, mustBeHeld: false }];
    const redisson = [{ match: "r:*", layout: "redisson" as const, mustBeHeld: false }];
    expect(hasKeyspaceNotifications("", token)).toBe(false);
    expect(hasKeyspaceNotifications("Kgx", token)).toBe(true);
    expect(hasKeyspaceNotifications("Ex", token)).toBe(false);
    expect(hasKeyspaceNotifications("KA", redisson)).toBe(true);
    expect(hasKeyspaceNotifications("Kgh", redisson)).toBe(true);
    expect(hasKeyspaceNotifications(null, token)).toBeNull();
  });
});

describe("keySlot", () => {
  it("matches the cluster specification's examples", () => {
    expect(keySlot("123456789")).toBe(0x31c3 % 16384);
    expect(keySlot("foo")).toBe(12182);
    expect(keySlot("{user1000}.following")).toBe(keySlot("user1000"));
    expect(keySlot("foo{}{bar}")).toBe(keySlot("foo{}{bar}"));
  });
});
