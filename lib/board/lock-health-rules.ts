// The lock rules, in the board's style: one pure function per rule, thresholds passed in; each
// returns a flag (words first) or null. Client-safe.

import type { HealthFlag, Severity } from "@/lib/board/board-types";
import { judgeChurn, judgeExpiry, recoveryHoldMs } from "@/lib/board/finding-lifetime";
import { formatCount, formatDuration, formatWindow } from "@/lib/board/format";
import { checkStale, type RuleContext, sortFlags } from "@/lib/board/health-rules";
import { isoOrNull } from "@/lib/board/iso-time";
import type { EndedFinding, LockSnapshot } from "@/lib/board/lock-types";

/** An expiry while held is looked at this long at most (it ends sooner once the lock is calm again). */
export const EXPIRY_WINDOW_MS = 3_600_000;
/** A holder is stuck past this many times the longest hold that has ended. */
export const STUCK_HOLD_FACTOR = 3;
/** From this many waiters on, a fair lock's queue is long: a warning, not information. */
export const LONG_QUEUE_WAITERS = 5;

export type LockRuleContext = Pick<RuleContext, "nowMs" | "thresholds" | "staleAfterMs" | "clusterLastPollAt">;

function flag(rule: HealthFlag["rule"], severity: Severity, label: string, detail: string, since: string | null = null): HealthFlag {
  return { rule, severity, label, detail, since };
}

/** "2026-11-24 10:02:04.200 UTC": exact, in one zone, for evidence sentences. */
function exactUtc(iso: string | null): string {
  return iso === null ? "an unknown time" : `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

/** Stale: the lock's reads fail, or its cluster is not polled. Its holder is then unknown, never "free". */
export function checkLockStale(lock: LockSnapshot, ctx: LockRuleContext): HealthFlag | null {
  return checkStale(lock, ctx);
}

/** The recovery hold of this lock: BATON_RECOVERED_AFTER_SECONDS, else one TTL, else a minute. */
function recoveryOf(lock: LockSnapshot, ctx: Pick<LockRuleContext, "thresholds">): number {
  return recoveryHoldMs(ctx.thresholds.recoveredAfterMs, lock.stats.tenureMaxTtlMs ?? lock.ttlMs);
}

/**
 * The lock ran out while someone held it (a crash, or a stall past the TTL), and it has not
 * been calm since for the recovery hold (lib/board/finding-lifetime.ts). Its time is when it
 * happened ("at"), not a "since".
 */
export function checkExpiredWhileHeld(lock: LockSnapshot, ctx: Pick<LockRuleContext, "nowMs" | "thresholds">): HealthFlag | null {
  const expiry = lock.lastExpiry;
  if (expiry === null || ctx.nowMs - expiry.at > EXPIRY_WINDOW_MS) return null;
  const judged = judgeExpiry(expiry, lock, ctx.nowMs, recoveryOf(lock, ctx));
  if (judged.state === "ended") return null;
  const holder = expiry.fromHolder ?? "its holder";
  const settle = formatDuration(judged.recoveryMs);
  const after =
    judged.taker === null
      ? `nobody holds it: ${holder} may still be acting (over once it stays free ${settle})`
      : `${judged.taker} holds it now: ${holder} may still be acting (recovered once ${judged.taker} has held it ${settle}; ${formatDuration(judged.calmForMs)} so far)`;
  return flag(
    "expired-while-held",
    "critical",
    `Expired while held by ${holder}`,
    `the lock expired while ${holder} held it (held since ${exactUtc(expiry.heldSince)}; its TTL ended at ${exactUtc(expiry.expiresAtBefore)}); ${after}`,
    isoOrNull(expiry.at),
  );
}

/** The findings of the last hour that have ended (recovered), in words, for the lock's card. */
export function listEndedFindings(lock: LockSnapshot, ctx: Pick<LockRuleContext, "nowMs" | "thresholds">): EndedFinding[] {
  const ended: EndedFinding[] = [];
  const expiry = lock.lastExpiry;
  if (expiry !== null && ctx.nowMs - expiry.at <= EXPIRY_WINDOW_MS) {
    const judged = judgeExpiry(expiry, lock, ctx.nowMs, recoveryOf(lock, ctx));
    if (judged.state === "ended")
      ended.push({ rule: "expired-while-held", text: judged.text, startedAt: isoOrNull(expiry.at)!, endedAt: isoOrNull(judged.endedAt)! });
  }
  const { flapChanges, flapWindowMs } = ctx.thresholds;
  if (lock.changesInWindow > flapChanges) {
    const judged = judgeChurn(lock.changesInWindow, formatWindow(flapWindowMs), lock, ctx.nowMs, recoveryOf(lock, ctx));
    if (judged.state === "ended") ended.push({ rule: "lock-churn", text: judged.text, startedAt: null, endedAt: isoOrNull(judged.endedAt)! });
  }
  return ended;
}

/**
 * Stuck: the kind's own records say so (its description's describeStuckHolder: a PostgreSQL
 * session idle in a transaction past its bound), or the holder has held it for more than
 * STUCK_HOLD_FACTOR times the longest hold that ended (not for leader elections, which are held
 * for good).
 */
export function checkStuckHolder(lock: LockSnapshot, nowMs: number): HealthFlag | null {
  if (lock.holder !== null && lock.stuckWords !== null)
    return flag("stuck-holder", "warning", "Stuck holder", `${lock.holder}: ${lock.stuckWords}`, isoOrNull(lock.holderSince));
  if (lock.isMustBeHeld || lock.holder === null || lock.holderSince === null || lock.stats.longestHoldMs <= 0) return null;
  const held = nowMs - lock.holderSince;
  if (held <= STUCK_HOLD_FACTOR * lock.stats.longestHoldMs) return null;
  return flag(
    "stuck-holder",
    "warning",
    "Stuck holder",
    `${lock.holder} has held it for ${formatDuration(held)}, more than ${STUCK_HOLD_FACTOR}× the longest hold that ended (${formatDuration(lock.stats.longestHoldMs)})`,
    isoOrNull(lock.holderSince),
  );
}

/** More holder changes in the flapping window than the leaders' threshold (BATON_FLAP_*), until the holder has kept it for the recovery hold. */
export function checkLockChurn(lock: LockSnapshot, ctx: Pick<LockRuleContext, "nowMs" | "thresholds">): HealthFlag | null {
  const { flapChanges, flapWindowMs } = ctx.thresholds;
  if (lock.changesInWindow <= flapChanges) return null;
  if (judgeChurn(lock.changesInWindow, formatWindow(flapWindowMs), lock, ctx.nowMs, recoveryOf(lock, ctx)).state === "ended") return null;
  return flag(
    "lock-churn",
    "warning",
    `Churn: ${lock.changesInWindow} changes in ${formatWindow(flapWindowMs)}`,
    `${lock.changesInWindow} holder changes in ${formatWindow(flapWindowMs)} (more than ${flapChanges})`,
  );
}

/** A leader election (its pattern must always be held) that nobody holds. */
export function checkNoHolder(lock: LockSnapshot): HealthFlag | null {
  if (!lock.isMustBeHeld || lock.holder !== null) return null;
  return flag(
    "no-holder",
    "critical",
    "No holder",
    `${lock.key} must always be held (pattern ${lock.pattern} is a leader election) and nobody holds it`,
    isoOrNull(lock.lastChangeAt),
  );
}

/** Redlock: no majority of the masters agrees on one holder. */
export function checkRedlockSplit(lock: LockSnapshot): HealthFlag | null {
  if (!lock.isSplit) return null;
  return flag(
    "redlock-split",
    "critical",
    "Redlock split",
    "no majority of the Redlock masters agrees on one token: nobody holds it safely, and two may believe they do",
  );
}

/** Contenders queued on a fair lock: information, a warning from LONG_QUEUE_WAITERS on. */
export function checkWaiters(lock: LockSnapshot): HealthFlag | null {
  const count = lock.waiters.length;
  if (count === 0) return null;
  const words = `${formatCount(count)} ${count === 1 ? "waiter" : "waiters"}`;
  if (count >= LONG_QUEUE_WAITERS) {
    return flag("waiters", "warning", `Long queue: ${words}`, `${words} queued (${LONG_QUEUE_WAITERS} or more is a long queue): ${lock.waiters.join(", ")}`);
  }
  return flag("waiters", "info", words, `queued in order: ${lock.waiters.join(", ")}`);
}

/**
 * Renewal risk: the TTL is shorter than the longest hold observed (ended holds, or this one so
 * far), and the TTL came close to zero during this hold: the holder depends on renewing in time.
 */
export function checkRenewalRisk(lock: LockSnapshot, nowMs: number): HealthFlag | null {
  if (lock.ttlMs === null || lock.holder === null || lock.stats.nearExpiryCount <= 0) return null;
  const current = lock.holderSince === null ? 0 : nowMs - lock.holderSince;
  const longest = Math.max(lock.stats.longestHoldMs, current);
  const ttl = lock.stats.tenureMaxTtlMs ?? lock.ttlMs;
  if (!(ttl < longest)) return null;
  const times = lock.stats.nearExpiryCount === 1 ? "once" : `${formatCount(lock.stats.nearExpiryCount)} times`;
  return flag(
    "renewal-risk",
    "warning",
    "Renewal risk",
    `its TTL (${formatDuration(ttl)}) is shorter than the longest hold observed (${formatDuration(longest)}), and it came close to zero ${times} during this hold`,
  );
}

/** The lock no longer exists (its key is gone from every watched pattern). */
export function checkLockGone(lock: LockSnapshot): HealthFlag | null {
  if (lock.goneAt === null) return null;
  return flag("gone", "info", "Gone", "the lock's key is no longer found; what is shown is its last state", isoOrNull(lock.goneAt));
}

/**
 * Every lock rule. Stale data is not judged as current (its holder is unknown, never "free"):
 * a stale lock keeps what is history (an expiry in the last hour) and gone.
 */
export function evaluateLock(lock: LockSnapshot, ctx: LockRuleContext): HealthFlag[] {
  const expired = checkExpiredWhileHeld(lock, ctx);
  const gone = checkLockGone(lock);
  const stale = checkLockStale(lock, ctx);
  const keep = (flags: (HealthFlag | null)[]) => sortFlags(flags.filter((f): f is HealthFlag => f !== null));
  if (stale) return keep([stale, expired, gone]);
  if (gone) return keep([expired, gone]);
  return keep([
    checkRedlockSplit(lock),
    checkNoHolder(lock),
    expired,
    checkRenewalRisk(lock, ctx.nowMs),
    checkStuckHolder(lock, ctx.nowMs),
    checkLockChurn(lock, ctx),
    checkWaiters(lock),
  ]);
}
