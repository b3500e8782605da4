import { describe, expect, it } from "vitest";

import { DEFAULT_RECOVERY_MS, formatEventTime, judgeChurn, judgeExpiry, recoveryHoldMs } from "@/lib/board/finding-lifetime";
import { buildLocksBoard } from "@/lib/board/build-locks";
import type { ExpirySnapshot, LockSnapshot } from "@/lib/board/lock-types";

// A finding's lifetime: it starts at its event and ends once the lock has been calm for the
// recovery hold (one TTL by default). The demo's case: sched-a's lock expired at 19:00:16,
// sched-b took it over a second later.

const SECOND = 1_000;
const EXPIRED_AT = Date.parse("2026-11-27T19:00:16.000Z");
const TAKEN_AT = EXPIRED_AT + SECOND;
const expiry = (toHolder: string | null, at = TAKEN_AT): ExpirySnapshot => ({
  at,
  fromHolder: "sched-a",
  toHolder,
  heldSince: "2026-11-27T18:59:00.000Z",
  expiresAtBefore: new Date(EXPIRED_AT).toISOString(),
});

describe("recoveryHoldMs", () => {
  it.each([
    ["the setting wins", 90_000, 4_000, 90_000],
    ["else one TTL", null, 4_000, 4_000],
    ["else a minute", null, null, DEFAULT_RECOVERY_MS],
    ["a TTL of 0 is none", null, 0, DEFAULT_RECOVERY_MS],
  ])("%s", (_name, setting, ttl, expected) => {
    expect(recoveryHoldMs(setting, ttl)).toBe(expected);
  });
});

describe("an expiry while held: start and end", () => {
  const TTL = 4 * SECOND;
  const cases: {
    name: string;
    expiry: ExpirySnapshot;
    now: { holder: string | null; holderSince: number | null; lastChangeAt: number | null; isSplit?: boolean };
    atMs: number;
    expected: { state: "active"; taker: string | null; calmForMs: number } | { state: "ended"; endedAt: number; text: string };
  }[] = [
    {
      name: "taken over, held for less than one TTL: still active",
      expiry: expiry("sched-b"),
      now: { holder: "sched-b", holderSince: TAKEN_AT, lastChangeAt: TAKEN_AT },
      atMs: TAKEN_AT + 3 * SECOND,
      expected: { state: "active", taker: "sched-b", calmForMs: 3 * SECOND },
    },
    {
      name: "taken over, held for one TTL: recovered, told with the time it happened",
      expiry: expiry("sched-b"),
      now: { holder: "sched-b", holderSince: TAKEN_AT, lastChangeAt: TAKEN_AT },
      atMs: TAKEN_AT + TTL,
      expected: { state: "ended", endedAt: TAKEN_AT + TTL, text: "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b 1 s later" },
    },
    {
      name: "taken over, then handed on: the last holder must hold it for one TTL",
      expiry: expiry("sched-b"),
      now: { holder: "sched-c", holderSince: TAKEN_AT + 10 * SECOND, lastChangeAt: TAKEN_AT + 10 * SECOND },
      atMs: TAKEN_AT + 12 * SECOND,
      expected: { state: "active", taker: "sched-c", calmForMs: 2 * SECOND },
    },
    {
      name: "handed on and kept: recovered, naming who keeps it and when it took it",
      expiry: expiry("sched-b"),
      now: { holder: "sched-c", holderSince: TAKEN_AT + 10 * SECOND, lastChangeAt: TAKEN_AT + 10 * SECOND },
      atMs: TAKEN_AT + 14 * SECOND,
      expected: {
        state: "ended",
        endedAt: TAKEN_AT + 14 * SECOND,
        text: "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-c 11 s later",
      },
    },
    {
      name: "taken at once: within a second",
      expiry: expiry("sched-b", EXPIRED_AT + 300),
      now: { holder: "sched-b", holderSince: EXPIRED_AT + 300, lastChangeAt: EXPIRED_AT + 300 },
      atMs: EXPIRED_AT + 300 + TTL,
      expected: {
        state: "ended",
        endedAt: EXPIRED_AT + 300 + TTL,
        text: "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b within a second",
      },
    },
    {
      name: "nobody took it, not yet for one TTL: active (sched-a may still be acting)",
      expiry: expiry(null),
      now: { holder: null, holderSince: null, lastChangeAt: TAKEN_AT },
      atMs: TAKEN_AT + 2 * SECOND,
      expected: { state: "active", taker: null, calmForMs: 2 * SECOND },
    },
    {
      name: "nobody took it for one TTL: ended",
      expiry: expiry(null),
      now: { holder: null, holderSince: null, lastChangeAt: TAKEN_AT },
      atMs: TAKEN_AT + TTL,
      expected: { state: "ended", endedAt: TAKEN_AT + TTL, text: "ended: expired while held by sched-a at 19:00:16 UTC; nobody took it over" },
    },
    {
      name: "a Redlock split is never calm",
      expiry: expiry("sched-b"),
      now: { holder: null, holderSince: null, lastChangeAt: TAKEN_AT, isSplit: true },
      atMs: TAKEN_AT + 60 * SECOND,
      expected: { state: "active", taker: null, calmForMs: 60 * SECOND },
    },
    {
      name: "a holder since before the expiry (read late) counts from the expiry",
      expiry: expiry("sched-b"),
      now: { holder: "sched-b", holderSince: EXPIRED_AT - 5 * SECOND, lastChangeAt: TAKEN_AT },
      atMs: TAKEN_AT + 2 * SECOND,
      expected: { state: "active", taker: "sched-b", calmForMs: 3 * SECOND },
    },
    {
      name: "a take-over Baton saw 3 s late counts from when the holder took it (the card's 'Since'), not from when Baton saw it",
      expiry: expiry("sched-b", TAKEN_AT + 3 * SECOND),
      now: { holder: "sched-b", holderSince: TAKEN_AT, lastChangeAt: TAKEN_AT + 3 * SECOND },
      atMs: TAKEN_AT + 3 * SECOND,
      expected: { state: "active", taker: "sched-b", calmForMs: 3 * SECOND },
    },
    {
      name: "seen late and held for one TTL since it took it: recovered, 1 s after the expiry",
      expiry: expiry("sched-b", TAKEN_AT + 3 * SECOND),
      now: { holder: "sched-b", holderSince: TAKEN_AT, lastChangeAt: TAKEN_AT + 3 * SECOND },
      atMs: TAKEN_AT + TTL,
      expected: { state: "ended", endedAt: TAKEN_AT + TTL, text: "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b 1 s later" },
    },
  ];
  it.each(cases)("$name", ({ expiry: e, now, atMs, expected }) => {
    expect(judgeExpiry(e, { isSplit: false, ...now }, atMs, TTL)).toMatchObject(expected);
  });
});

describe("flapping: start and end", () => {
  const cases: { name: string; holder: string | null; holderSince: number | null; lastChangeAt: number | null; ended: boolean }[] = [
    { name: "holder kept it for the hold: settled", holder: "w-2", holderSince: TAKEN_AT - 60 * SECOND, lastChangeAt: TAKEN_AT - 60 * SECOND, ended: true },
    { name: "holder took it lately: still flapping", holder: "w-2", holderSince: TAKEN_AT - 59 * SECOND, lastChangeAt: TAKEN_AT - 59 * SECOND, ended: false },
    { name: "a hidden flap since: still flapping", holder: "w-2", holderSince: TAKEN_AT - 600 * SECOND, lastChangeAt: TAKEN_AT - 10 * SECOND, ended: false },
    { name: "nobody holds it: still flapping", holder: null, holderSince: null, lastChangeAt: TAKEN_AT - 600 * SECOND, ended: false },
  ];
  it.each(cases)("$name", ({ holder, holderSince, lastChangeAt, ended }) => {
    const judged = judgeChurn(7, "10 min", { holder, holderSince, lastChangeAt }, TAKEN_AT, 60 * SECOND);
    expect(judged.state).toBe(ended ? "ended" : "active");
    if (judged.state === "ended") expect(judged.text).toBe(`settled: 7 holder changes in 10 min, then w-2 held it from ${formatEventTime(holderSince!)} on`);
  });
});

describe("the lock's card and its health", () => {
  const snapshot = (nowMs: number): LockSnapshot => ({
    cluster: "redis-main",
    key: "scheduler:leader",
    pattern: "scheduler:*",
    isMustBeHeld: true,
    holder: "sched-b",
    holderSince: TAKEN_AT,
    expiresAt: nowMs + 3 * SECOND,
    ttlMs: 4 * SECOND,
    waiters: [],
    isSplit: false,
    stats: { tenureMaxTtlMs: 4 * SECOND, nearExpiryCount: 0, longestHoldMs: 60 * SECOND },
    lastObservedAt: nowMs - 100,
    staleSince: null,
    lastError: null,
    goneAt: null,
    lastChangeAt: TAKEN_AT,
    changesInWindow: 1,
    lastExpiry: expiry("sched-b"),
    stuckWords: null,
  });
  const boardAt = (nowMs: number) =>
    buildLocksBoard({
      nowMs,
      thresholds: { flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null },
      clusters: [
        {
          name: "redis-main",
          sourceKind: "redis",
          pollIntervalMs: 500,
          lastPollAt: new Date(nowMs - 100).toISOString(),
          lastCycleMs: 500,
          lastPollErrorCount: 0,
          lastPollError: null,
        },
      ],
      locks: [
        {
          snapshot: snapshot(nowMs),
          sourceKind: "redis",
          resourceKind: "REDIS_LOCK",
          layout: "token",
          holderToken: "t",
          details: {},
          firstSeenAt: EXPIRED_AT - 600_000,
          lastChange: null,
          expiriesInHour: 1,
        },
      ],
    }).locks[0]!;

  it("is Critical while the finding is active, with no ended finding", () => {
    const row = boardAt(TAKEN_AT + 2 * SECOND);
    expect(row.health).toBe("critical");
    expect(row.flags.map((f) => f.rule)).toEqual(["expired-while-held"]);
    expect(row.ended).toEqual([]);
  });

  it("is OK once sched-b has held it for one TTL, and its card says what happened", () => {
    const row = boardAt(TAKEN_AT + 4 * SECOND);
    expect(row.health).toBe("ok");
    expect(row.flags).toEqual([]);
    expect(row.ended).toEqual([
      {
        rule: "expired-while-held",
        text: "recovered: expired while held by sched-a at 19:00:16 UTC, taken over by sched-b 1 s later",
        startedAt: new Date(TAKEN_AT).toISOString(),
        endedAt: new Date(TAKEN_AT + 4 * SECOND).toISOString(),
      },
    ]);
  });
});
