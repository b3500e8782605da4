import { describe, expect, it } from "vitest";

import { filterLocks, showsLocks, showsSubscriptions } from "@/lib/board/lock-filters";
import type { LockRow } from "@/lib/board/lock-types";
import { describeLockChange, formatTtlLeft, shortenToken, type LockChangeFacts } from "@/lib/board/lock-words";

const details = { heldSince: "2026-11-24T10:02:01.100Z", expiresAtBefore: "2026-11-24T10:02:04.200Z" };
const change = (patch: Partial<LockChangeFacts>): LockChangeFacts => ({
  kind: "HOLDER_CHANGED",
  ending: null,
  fromHolder: "pod-a",
  toHolder: "pod-b",
  isDuringGap: false,
  details,
  ...patch,
});

describe("describeLockChange", () => {
  it.each([
    [
      "expired, then acquired",
      change({ ending: "EXPIRED" }),
      "expired while held by pod-a (it held it since 10:02:01.100; its TTL ended at 10:02:04.200); pod-b acquired it",
    ],
    [
      "expired, nobody after",
      change({ kind: "HOLDER_LOST", ending: "EXPIRED", toHolder: null }),
      "expired while held by pod-a (it held it since 10:02:01.100; its TTL ended at 10:02:04.200); nobody holds it",
    ],
    ["released", change({ kind: "HOLDER_LOST", ending: "RELEASED", toHolder: null }), "pod-a released it (it held it since 10:02:01.100); nobody holds it"],
    ["released and taken", change({ ending: "RELEASED", details: {} }), "pod-a released it; pod-b acquired it"],
    ["taken over", change({ ending: "TAKEN_OVER" }), "taken over: pod-b's token replaced pod-a's before its TTL ended"],
    ["acquired", change({ kind: "HOLDER_APPEARED", fromHolder: null }), "pod-b acquired it"],
    ["re-acquired", change({ kind: "HIDDEN_FLAP", toHolder: "pod-a" }), "pod-a acquired it again with a new token"],
    ["unknown ending", change({}), "pod-a's hold ended, how is not known; pod-b acquired it"],
    [
      "during a gap",
      change({ ending: "RELEASED", details: {}, isDuringGap: true }),
      "pod-a released it; pod-b acquired it (while polls failed: when exactly is not known)",
    ],
  ])("%s", (_name, facts, expected) => {
    expect(describeLockChange(facts, "UTC")).toBe(expected);
  });
});

describe("lock words", () => {
  const now = Date.parse("2026-11-27T10:00:00.000Z");
  const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
  it.each([
    ["no TTL", null, at(-1_000), "no TTL"],
    ["the expiry ahead", at(12_400), at(-1_000), "12 s left"],
    // The card: read 7 s ago with 4 s left then; nothing has read it since, so the card
    // must not claim an expiry the health rules have not seen (the verdict said OK).
    ["the expiry passed since the last read", at(-3_000), at(-7_000), "TTL 4 s at last read, 7 s ago"],
    ["the expiry passed, never read", at(-3_000), null, "TTL due 3 s ago, not read since"],
  ])("TTL left with %s", (_name, expiresAt, lastReadAt, expected) => {
    expect(formatTtlLeft(expiresAt, lastReadAt, now)).toBe(expected);
  });

  it("never says expired: only the expired-while-held rule may", () => {
    for (let offset = -60_000; offset <= 60_000; offset += 500) {
      expect(formatTtlLeft(at(offset), at(-30_000), now)).not.toMatch(/expired/i);
    }
  });

  it("shortens long tokens only", () => {
    expect(shortenToken("6f1c9a2e-4b7d-4e8f-9a0b-1c2d3e4fb7d0:42")).toBe("6f1c9a2e…0:42");
    expect(shortenToken("pod-7")).toBe("pod-7");
    expect(shortenToken(null)).toBe("—");
  });
});

describe("filterLocks", () => {
  const row = (patch: Partial<LockRow>): LockRow =>
    ({
      cluster: "redis-main",
      sourceKind: "redis",
      key: "lock:a",
      pattern: "lock:*",
      holder: "pod-a",
      waiters: [],
      health: "ok",
      flags: [],
      ...patch,
    }) as LockRow;
  const locks = [
    row({}),
    row({ key: "lock:b", holder: "pod-b", waiters: ["pod-c"] }),
    row({ cluster: "zk", sourceKind: "zookeeper", key: "/locks/job", holder: null }),
  ];

  it.each([
    [{ cluster: null, kind: null, q: "" }, ["lock:a", "lock:b", "/locks/job"]],
    [{ cluster: "zk", kind: null, q: "" }, ["/locks/job"]],
    [{ cluster: null, kind: "redis", q: "" }, ["lock:a", "lock:b"]],
    [{ cluster: null, kind: "locks", q: "" }, ["lock:a", "lock:b", "/locks/job"]],
    [{ cluster: null, kind: null, q: "POD-C" }, ["lock:b"]],
    [{ cluster: null, kind: null, q: "lock: pod-a" }, ["lock:a"]],
  ])("%o", (filters, expected) => {
    expect(filterLocks(locks, filters).map((l) => l.key)).toEqual(expected);
  });

  it.each([
    [null, true, true],
    ["pulsar", true, false],
    ["locks", false, true],
    ["redis", false, true],
  ])("kind %s shows subscriptions %s, locks %s", (kind, subscriptions, locksShown) => {
    expect(showsSubscriptions(kind)).toBe(subscriptions);
    expect(showsLocks(kind)).toBe(locksShown);
  });
});
