import { describe, expect, it } from "vitest";

import { majorityOf, shortenRedissonOwner, shortenToken, toLockObservations } from "@/lib/sources/redis/lock-observation";
import type { KeyToRead, LockReading } from "@/lib/sources/redis/read-locks";
import type { RedisLockPattern } from "@/lib/sources/redis/redis-config";

const AT = "2026-11-24T10:00:00.000Z";
const TOKEN = "6f1c9a2e4b7d4e0f9a1b2c3d4e5f77d0";
const UUID = "8f3b5c2e-1d4a-4b6c-9e8f-0a1b2c3d4e5f";

const patterns: RedisLockPattern[] = [
  { match: "lock:*", layout: "token", mustBeHeld: false },
  { match: "pod-lock:*", layout: "token", mustBeHeld: false, holderPattern: "^(?<holder>pod-\\d+):" },
  { match: "job-lock:*", layout: "token", mustBeHeld: true, holderPattern: "@(?<holder>[^:]+):" },
  { match: "rlock:*", layout: "redisson", mustBeHeld: false },
];

function reading(overrides: Partial<LockReading> & { key: string }): LockReading {
  return {
    pattern: "lock:*",
    layout: "token",
    master: "m1:6379",
    observedAt: AT,
    value: null,
    fields: null,
    pttlMs: null,
    queue: [],
    queueTimeouts: [],
    error: null,
    ...overrides,
  };
}

function keyOf(key: string, pattern = "lock:*", layout: KeyToRead["layout"] = "token"): KeyToRead {
  return { key, pattern, layout };
}

describe("shortening", () => {
  it("keeps short tokens, cuts long ones to 8…4", () => {
    expect(shortenToken("pod-7")).toBe("pod-7");
    expect(shortenToken(TOKEN)).toBe("6f1c9a2e…77d0");
    expect(shortenRedissonOwner(`${UUID}:57`)).toBe("8f3b5c2e:57");
  });
  it("has a majority of 2 in 3 and 3 in 5", () => {
    expect([majorityOf(3), majorityOf(5)]).toEqual([2, 3]);
  });
});

describe("toLockObservations, one master", () => {
  it("reads a held token lock: holder shortened, token exact, expiry from the answer's time", () => {
    const { observations, errors } = toLockObservations({
      keys: [keyOf("lock:a")],
      readings: [reading({ key: "lock:a", value: TOKEN, pttlMs: 29_500 })],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(errors).toEqual([]);
    expect(observations).toEqual([
      {
        resourceKey: "lock:a",
        pattern: "lock:*",
        holder: "6f1c9a2e…77d0",
        holderToken: TOKEN,
        expiresAt: "2026-11-24T10:00:29.500Z",
        ttlMs: 29_500,
        waiters: [],
        observedAt: AT,
        isSplit: false,
        details: { layout: "token", master: "m1:6379", mustBeHeld: false, token: "6f1c9a2e…77d0" },
      },
    ]);
  });

  it("applies holderPattern (redis-py style pod token, ShedLock value)", () => {
    const { observations } = toLockObservations({
      keys: [keyOf("pod-lock:a", "pod-lock:*"), keyOf("job-lock:prod:report", "job-lock:*")],
      readings: [
        reading({ key: "pod-lock:a", pattern: "pod-lock:*", value: `pod-7:${TOKEN}`, pttlMs: 1_000 }),
        reading({ key: "job-lock:prod:report", pattern: "job-lock:*", value: `ADDED:2026-11-24T09:59:58.120Z@worker-3.prod:${UUID}`, pttlMs: 60_000 }),
      ],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(observations.map((observation) => observation.holder)).toEqual(["pod-7", "worker-3.prod"]);
    expect(observations[1]!.details.mustBeHeld).toBe(true);
  });

  it("falls back to the shortened token when holderPattern does not match", () => {
    const { observations } = toLockObservations({
      keys: [keyOf("pod-lock:b", "pod-lock:*")],
      readings: [reading({ key: "pod-lock:b", pattern: "pod-lock:*", value: TOKEN, pttlMs: 1_000 })],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(observations[0]!.holder).toBe("6f1c9a2e…77d0");
  });

  it("reports a free lock with nulls and a lock without TTL as never expiring", () => {
    const { observations } = toLockObservations({
      keys: [keyOf("lock:free"), keyOf("lock:forever")],
      readings: [reading({ key: "lock:free" }), reading({ key: "lock:forever", value: "x", pttlMs: -1 })],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(observations[0]).toMatchObject({ holder: null, holderToken: null, expiresAt: null, ttlMs: null });
    expect(observations[1]).toMatchObject({ holder: "x", expiresAt: null, ttlMs: null, details: { neverExpires: true } });
  });

  it("reads a Redisson hash: owner field, reentrancy, fair-lock waiters in order", () => {
    const { observations } = toLockObservations({
      keys: [keyOf("rlock:a", "rlock:*", "redisson")],
      readings: [
        reading({
          key: "rlock:a",
          pattern: "rlock:*",
          layout: "redisson",
          fields: { [`${UUID}:57`]: "2" },
          pttlMs: 30_000,
          queue: [`${UUID}:58`, "aaaaaaaa-0000-0000-0000-000000000000:12"],
          queueTimeouts: [{ waiter: `${UUID}:58`, timeoutAt: Date.parse(AT) + 300_000 }],
        }),
      ],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(observations[0]).toMatchObject({
      holder: "8f3b5c2e:57",
      holderToken: `${UUID}:57`,
      waiters: ["8f3b5c2e:58", "aaaaaaaa:12"],
      details: { layout: "redisson", reentrancy: 2, waiterTimeouts: [{ waiter: "8f3b5c2e:58", timeoutAt: "2026-11-24T10:05:00.000Z" }] },
    });
  });

  it("turns an unanswered master into per-key errors, never into free locks", () => {
    const { observations, errors } = toLockObservations({
      keys: [keyOf("lock:a"), keyOf("lock:b")],
      readings: [],
      failures: [{ master: "m1:6379", keys: ["lock:a", "lock:b"], message: "Redis m1:6379: connection refused" }],
      patterns,
      redlockMasters: null,
    });
    expect(observations).toEqual([]);
    expect(errors).toEqual([
      { key: "lock:a", master: "m1:6379", message: "Redis m1:6379: connection refused" },
      { key: "lock:b", master: "m1:6379", message: "Redis m1:6379: connection refused" },
    ]);
  });

  it("turns a wrong type into that key's error", () => {
    const { observations, errors } = toLockObservations({
      keys: [keyOf("lock:h")],
      readings: [reading({ key: "lock:h", error: "WRONGTYPE Operation against a key holding the wrong kind of value" })],
      failures: [],
      patterns,
      redlockMasters: null,
    });
    expect(observations).toEqual([]);
    expect(errors[0]!.message).toContain("is lock:h a token lock?");
  });
});

describe("toLockObservations, a Redlock group of 3", () => {
  const masters = ["m1:6379", "m2:6379", "m3:6379"];
  const group = (values: (string | null | "down")[], pttls: number[] = [10_000, 9_000, 8_000]) => {
    const readings = values.flatMap((value, index) =>
      value === "down"
        ? []
        : [
            reading({
              key: "lock:leader",
              master: masters[index]!,
              value,
              pttlMs: value === null ? null : pttls[index]!,
              observedAt: `2026-11-24T10:00:00.00${index}Z`,
            }),
          ],
    );
    const failures = values.flatMap((value, index) =>
      value === "down" ? [{ master: masters[index]!, keys: ["lock:leader"], message: `Redis ${masters[index]}: connection refused` }] : [],
    );
    return toLockObservations({ keys: [keyOf("lock:leader")], readings, failures, patterns, redlockMasters: masters });
  };

  it("names the token on a majority as holder; expiry holds while a majority does", () => {
    const { observations, errors } = group(["A", "A", null]);
    expect(errors).toEqual([]);
    expect(observations[0]).toMatchObject({ holder: "A", holderToken: "A", isSplit: false, observedAt: "2026-11-24T10:00:00.002Z" });
    // m1 expires at +10 000 ms from .000, m2 at +9 000 from .001: the lock holds until the 2nd latest.
    expect(observations[0]!.expiresAt).toBe("2026-11-24T10:00:09.001Z");
    expect(observations[0]!.details.masters).toEqual({ "m1:6379": "A", "m2:6379": "A", "m3:6379": null });
  });

  it("counts a master whose key never expires as outlasting the timed ones", () => {
    const { observations } = group(["A", "A", "A"], [-1, 9_000, 8_000]);
    expect(observations[0]!.expiresAt).toBe("2026-11-24T10:00:09.001Z");
    expect(group(["A", "A", null], [-1, -1, 0]).observations[0]).toMatchObject({ expiresAt: null, details: { neverExpires: true } });
  });

  it("calls different tokens without a majority a split", () => {
    const { observations } = group(["A", "B", null]);
    expect(observations[0]).toMatchObject({ holder: null, holderToken: null, isSplit: true, details: { split: { A: 1, B: 1 } } });
  });

  it("is free when no master has a token", () => {
    expect(group([null, null, null]).observations[0]).toMatchObject({ holder: null, isSplit: false });
  });

  it("decides with one master down when the other two agree, and surfaces the master's error", () => {
    const { observations, errors } = group(["A", "A", "down"]);
    expect(observations[0]).toMatchObject({ holder: "A", details: { masters: { "m3:6379": "unknown" } } });
    expect(errors).toEqual([{ master: "m3:6379", message: "Redis m3:6379: connection refused" }]);
  });

  it("cannot decide when the unanswered master could tip the majority: error for the key, no observation", () => {
    const { observations, errors } = group(["A", null, "down"]);
    expect(observations).toEqual([]);
    expect(errors.map((error) => error.key ?? error.master)).toEqual(["m3:6379", "lock:leader"]);
    expect(errors[1]!.message).toContain("cannot decide");
  });

  it("decides free with one master down and two free", () => {
    expect(group([null, null, "down"]).observations[0]).toMatchObject({ holder: null, isSplit: false });
  });
});
