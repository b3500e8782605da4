import { describe, expect, it } from "vitest";

import type { BoardThresholds } from "@/lib/board/board-types";
import {
  checkExpiredWhileHeld,
  checkLockChurn,
  checkLockGone,
  checkLockStale,
  checkNoHolder,
  checkRedlockSplit,
  checkRenewalRisk,
  checkStuckHolder,
  checkWaiters,
  evaluateLock,
  type LockRuleContext,
} from "@/lib/board/lock-health-rules";
import type { LockSnapshot } from "@/lib/board/lock-types";

const NOW = Date.now();
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const thresholds: BoardThresholds = { flapChanges: 4, flapWindowMs: 10 * MINUTE, stuckSamples: 3, recoveredAfterMs: null };
const ctx: LockRuleContext = { nowMs: NOW, thresholds, staleAfterMs: 15 * SECOND, clusterLastPollAt: new Date(NOW - SECOND).toISOString() };

function lock(patch: Partial<LockSnapshot> = {}): LockSnapshot {
  return {
    cluster: "redis-main",
    key: "lock:daily-job",
    pattern: "lock:*",
    isMustBeHeld: false,
    holder: "pod-a",
    holderSince: NOW - MINUTE,
    expiresAt: NOW + 20 * SECOND,
    ttlMs: 30 * SECOND,
    waiters: [],
    isSplit: false,
    stats: { tenureMaxTtlMs: 30 * SECOND, nearExpiryCount: 0, longestHoldMs: 0 },
    lastObservedAt: NOW - SECOND,
    staleSince: null,
    lastError: null,
    goneAt: null,
    lastChangeAt: NOW - MINUTE,
    changesInWindow: 1,
    lastExpiry: null,
    stuckWords: null,
    ...patch,
  };
}

const expiry = (agoMs: number, toHolder: string | null = "pod-b") => ({
  at: NOW - agoMs,
  fromHolder: "pod-a",
  toHolder,
  heldSince: "2026-11-24T10:02:01.100Z",
  expiresAtBefore: "2026-11-24T10:02:04.200Z",
});

describe("lock rules, one at a time", () => {
  const cases: {
    name: string;
    check: (l: LockSnapshot) => ReturnType<typeof checkWaiters>;
    lock: LockSnapshot;
    expected: { rule: string; severity: string; label?: string; detail?: RegExp } | null;
  }[] = [
    {
      name: "stale: reads fail",
      check: (l) => checkLockStale(l, ctx),
      lock: lock({ staleSince: NOW - MINUTE, lastError: "ECONNREFUSED" }),
      expected: { rule: "stale", severity: "unknown", detail: /polls fail: ECONNREFUSED/ },
    },
    {
      name: "stale: cluster not polled",
      check: (l) => checkLockStale(l, { ...ctx, clusterLastPollAt: new Date(NOW - HOUR).toISOString() }),
      lock: lock({ lastObservedAt: NOW - HOUR }),
      expected: { rule: "stale", severity: "unknown", detail: /no poll of redis-main/ },
    },
    { name: "stale: current", check: (l) => checkLockStale(l, ctx), lock: lock(), expected: null },
    {
      name: "expired while held 10 s ago, taken over, not yet for one TTL",
      check: (l) => checkExpiredWhileHeld(l, ctx),
      lock: lock({ holder: "pod-b", holderSince: NOW - 10 * SECOND, lastChangeAt: NOW - 10 * SECOND, lastExpiry: expiry(10 * SECOND) }),
      expected: {
        rule: "expired-while-held",
        severity: "critical",
        label: "Expired while held by pod-a",
        detail:
          /expired while pod-a held it \(held since 2026-11-24 10:02:01\.100 UTC; its TTL ended at 2026-11-24 10:02:04\.200 UTC\); pod-b holds it now: pod-a may still be acting \(recovered once pod-b has held it 30 s; 10 s so far\)/,
      },
    },
    {
      name: "expired while held, then nobody, not yet for one TTL",
      check: (l) => checkExpiredWhileHeld(l, ctx),
      lock: lock({ holder: null, holderSince: null, lastChangeAt: NOW - 5 * SECOND, lastExpiry: expiry(5 * SECOND, null) }),
      expected: { rule: "expired-while-held", severity: "critical", detail: /nobody holds it: pod-a may still be acting \(over once it stays free 30 s\)/ },
    },
    {
      name: "expired while held, then held by pod-b for one TTL: recovered",
      check: (l) => checkExpiredWhileHeld(l, ctx),
      lock: lock({ holder: "pod-b", holderSince: NOW - MINUTE, lastExpiry: expiry(MINUTE) }),
      expected: null,
    },
    { name: "expired more than an hour ago", check: (l) => checkExpiredWhileHeld(l, ctx), lock: lock({ lastExpiry: expiry(HOUR + MINUTE) }), expected: null },
    {
      name: "stuck: 4x the longest hold",
      check: (l) => checkStuckHolder(l, NOW),
      lock: lock({ holderSince: NOW - 40 * MINUTE, stats: { tenureMaxTtlMs: null, nearExpiryCount: 0, longestHoldMs: 10 * MINUTE } }),
      expected: { rule: "stuck-holder", severity: "warning", detail: /pod-a has held it for 40 m, more than 3× the longest hold that ended \(10 m\)/ },
    },
    {
      name: "stuck: within 3x",
      check: (l) => checkStuckHolder(l, NOW),
      lock: lock({ holderSince: NOW - 29 * MINUTE, stats: { tenureMaxTtlMs: null, nearExpiryCount: 0, longestHoldMs: 10 * MINUTE } }),
      expected: null,
    },
    {
      name: "stuck: the kind's own records say so (an advisory lock's session idle in a transaction), however short the hold",
      check: (l) => checkStuckHolder(l, NOW),
      lock: lock({ holderSince: NOW - 2 * MINUTE, stuckWords: "its session (pid 4242) has been idle in a transaction for 120 s, past idleInTransactionMaxMs" }),
      expected: { rule: "stuck-holder", severity: "warning", detail: /^pod-a: its session \(pid 4242\) has been idle in a transaction for 120 s/ },
    },
    {
      name: "stuck: the kind's words are not read while nobody holds it",
      check: (l) => checkStuckHolder(l, NOW),
      lock: lock({ holder: null, holderSince: null, stuckWords: "idle in a transaction" }),
      expected: null,
    },
    {
      name: "stuck: never for a leader election",
      check: (l) => checkStuckHolder(l, NOW),
      lock: lock({ isMustBeHeld: true, holderSince: NOW - 40 * MINUTE, stats: { tenureMaxTtlMs: null, nearExpiryCount: 0, longestHoldMs: MINUTE } }),
      expected: null,
    },
    { name: "stuck: no hold ended yet", check: (l) => checkStuckHolder(l, NOW), lock: lock({ holderSince: NOW - 40 * MINUTE }), expected: null },
    {
      name: "churn: 5 changes > 4",
      check: (l) => checkLockChurn(l, ctx),
      lock: lock({ changesInWindow: 5, holderSince: NOW - 10 * SECOND, lastChangeAt: NOW - 10 * SECOND }),
      expected: { rule: "lock-churn", severity: "warning", label: "Churn: 5 changes in 10 min" },
    },
    {
      name: "churn: 5 changes, then one holder for one TTL: settled",
      check: (l) => checkLockChurn(l, ctx),
      lock: lock({ changesInWindow: 5 }),
      expected: null,
    },
    { name: "churn: 4 changes", check: (l) => checkLockChurn(l, ctx), lock: lock({ changesInWindow: 4 }), expected: null },
    {
      name: "must be held, free",
      check: checkNoHolder,
      lock: lock({ isMustBeHeld: true, holder: null }),
      expected: { rule: "no-holder", severity: "critical", detail: /must always be held/ },
    },
    { name: "free, not an election", check: checkNoHolder, lock: lock({ holder: null }), expected: null },
    { name: "split", check: checkRedlockSplit, lock: lock({ isSplit: true }), expected: { rule: "redlock-split", severity: "critical" } },
    {
      name: "1 waiter",
      check: checkWaiters,
      lock: lock({ waiters: ["pod-b"] }),
      expected: { rule: "waiters", severity: "info", label: "1 waiter", detail: /pod-b/ },
    },
    {
      name: "4 waiters",
      check: checkWaiters,
      lock: lock({ waiters: ["a", "b", "c", "d"] }),
      expected: { rule: "waiters", severity: "info", label: "4 waiters" },
    },
    {
      name: "5 waiters: long queue",
      check: checkWaiters,
      lock: lock({ waiters: ["a", "b", "c", "d", "e"] }),
      expected: { rule: "waiters", severity: "warning", label: "Long queue: 5 waiters" },
    },
    {
      name: "renewal risk",
      check: (l) => checkRenewalRisk(l, NOW),
      lock: lock({ stats: { tenureMaxTtlMs: 30 * SECOND, nearExpiryCount: 3, longestHoldMs: 2 * MINUTE } }),
      expected: {
        rule: "renewal-risk",
        severity: "warning",
        detail: /TTL \(30 s\) is shorter than the longest hold observed \(2 m\), and it came close to zero 3 times/,
      },
    },
    {
      name: "renewal: never near zero",
      check: (l) => checkRenewalRisk(l, NOW),
      lock: lock({ stats: { tenureMaxTtlMs: 30 * SECOND, nearExpiryCount: 0, longestHoldMs: 2 * MINUTE } }),
      expected: null,
    },
    {
      name: "renewal: TTL longer than any hold",
      check: (l) => checkRenewalRisk(l, NOW),
      lock: lock({ ttlMs: 10 * MINUTE, stats: { tenureMaxTtlMs: 10 * MINUTE, nearExpiryCount: 2, longestHoldMs: 2 * MINUTE } }),
      expected: null,
    },
    { name: "gone", check: checkLockGone, lock: lock({ goneAt: NOW - MINUTE }), expected: { rule: "gone", severity: "info" } },
  ];
  it.each(cases)("$name", ({ check, lock: l, expected }) => {
    const result = check(l);
    if (expected === null) {
      expect(result).toBeNull();
      return;
    }
    expect(result).toMatchObject({ rule: expected.rule, severity: expected.severity, ...(expected.label ? { label: expected.label } : {}) });
    if (expected.detail) expect(result!.detail).toMatch(expected.detail);
  });
});

describe("evaluateLock", () => {
  it("orders flags worst first", () => {
    const flags = evaluateLock(lock({ isSplit: true, waiters: ["pod-b"], holderSince: NOW - 5 * SECOND, lastExpiry: expiry(MINUTE), changesInWindow: 9 }), ctx);
    expect(flags.map((f) => f.rule)).toEqual(["redlock-split", "expired-while-held", "lock-churn", "waiters"]);
  });

  it("judges a stale lock unknown, never free, but keeps a recent expiry", () => {
    const flags = evaluateLock(
      lock({ holder: null, isMustBeHeld: true, staleSince: NOW - MINUTE, lastChangeAt: NOW - 10 * SECOND, lastExpiry: expiry(10 * SECOND) }),
      ctx,
    );
    expect(flags.map((f) => [f.rule, f.severity])).toEqual([
      ["expired-while-held", "critical"],
      ["stale", "unknown"],
    ]);
  });

  it("gives a healthy lock no flag", () => {
    expect(evaluateLock(lock(), ctx)).toEqual([]);
  });
});
