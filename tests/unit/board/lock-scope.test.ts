import { describe, expect, it } from "vitest";

import { findPatternScope, globToRegExp, readLockPatterns } from "@/lib/board/lock-scope";

describe("globToRegExp", () => {
  it.each([
    ["lock:*", "lock:daily-job", true],
    ["lock:*", "locks:daily", false],
    ["{app}:leader", "{app}:leader", true],
    ["job-lock:?:x", "job-lock:a:x", true],
    ["job-lock:?:x", "job-lock:ab:x", false],
    ["lock:[ab]", "lock:a", true],
    ["lock:[ab]", "lock:c", false],
    ["a.b", "axb", false],
    ["lock\\*", "lock*", true],
    ["lock\\*", "lockx", false],
  ])("%s matches %s: %s", (glob, key, expected) => {
    expect(globToRegExp(glob).test(key)).toBe(expected);
  });
});

describe("findPatternScope", () => {
  const patterns = readLockPatterns({
    patterns: [{ match: "lock:*", layout: "token" }, { match: "{app}:leader", layout: "redisson", mustBeHeld: true }, { nonsense: 1 }],
  });

  it("reads the scope tolerantly", () => {
    expect(patterns).toEqual([
      { match: "lock:*", layout: "token", mustBeHeld: false },
      { match: "{app}:leader", layout: "redisson", mustBeHeld: true },
    ]);
    expect(readLockPatterns({})).toEqual([]);
    expect(readLockPatterns(null)).toEqual([]);
  });

  it.each([
    ["{app}:leader", "{app}:leader", "redisson"],
    ["", "lock:x", "token"],
    ["gone:*", "other", null],
  ])("pattern %s, key %s: layout %s", (pattern, key, layout) => {
    expect(findPatternScope(patterns, pattern, key)?.layout ?? null).toBe(layout);
  });
});
