// A finding (expired while held, flapping) is an event with a start and an end, not a mark that
// stays for an hour: it ends once the resource has been calm for the recovery hold, i.e. its
// current holder has held it without a change for that long (or, after an expiry, nobody took
// it). The hold is BATON_RECOVERED_AFTER_SECONDS, or one TTL/lease where the lock has one, or a
// minute. Pure and client-safe: the board, the lock pages and the alerts judge with it alike.

import { formatDuration } from "@/lib/board/format";
import { isoOrNull } from "@/lib/board/iso-time";
import type { ExpirySnapshot } from "@/lib/board/lock-types";

/** The recovery hold when it is not configured and the resource has no TTL or lease. */
export const DEFAULT_RECOVERY_MS = 60_000;

/** How long a resource must stay calm for a finding to end: the setting, else one TTL/lease, else a minute. */
export function recoveryHoldMs(settingMs: number | null, ttlMs: number | null): number {
  if (settingMs !== null) return settingMs;
  return ttlMs !== null && ttlMs > 0 ? ttlMs : DEFAULT_RECOVERY_MS;
}

/** "19:00:16 UTC": the time of day an event happened, to the second. */
export function formatEventTime(ms: number): string {
  return `${isoOrNull(ms)!.slice(11, 19)} UTC`;
}

/** "1 s later", "within a second". */
function laterWords(ms: number): string {
  return ms < 1_000 ? "within a second" : `${formatDuration(ms)} later`;
}

/** What the lock is now, as far as an expiry's lifetime is concerned. */
export type LockNow = { holder: string | null; holderSince: number | null; lastChangeAt: number | null; isSplit: boolean };

export type ExpiryJudgement =
  | { state: "active"; taker: string | null; calmForMs: number; recoveryMs: number }
  | { state: "ended"; endedAt: number; text: string };

/**
 * An expiry while held ends when, after it, someone has held the lock for the recovery hold
 * ("recovered"), or nobody has taken it for that long ("ended": nobody can collide with a holder
 * that may still be acting). A split is never calm.
 */
export function judgeExpiry(expiry: ExpirySnapshot, lock: LockNow, nowMs: number, recoveryMs: number): ExpiryJudgement {
  const from = expiry.fromHolder ?? "its holder";
  const expiredAt = expiry.expiresAtBefore === null ? expiry.at : Math.min(Date.parse(expiry.expiresAtBefore), expiry.at);
  const taker = lock.holder;
  // A holder is calm from when it took the lock (the card's "Since"), never from before the
  // expiry; when Baton saw it take over does not matter. Nobody holding it: since the last change seen.
  const calmSince = taker !== null ? Math.max(expiredAt, lock.holderSince ?? expiry.at) : Math.max(expiry.at, lock.lastChangeAt ?? expiry.at);
  const calmForMs = Math.max(0, nowMs - calmSince);
  if (lock.isSplit || calmForMs < recoveryMs) return { state: "active", taker, calmForMs, recoveryMs };
  const what = `expired while held by ${from} at ${formatEventTime(expiredAt)}`;
  const endedAt = calmSince + recoveryMs;
  if (taker === null) return { state: "ended", endedAt, text: `ended: ${what}; nobody took it over` };
  // calmSince is when the holder who kept it took it: the one who took it at the expiry, or a later one.
  return { state: "ended", endedAt, text: `recovered: ${what}, taken over by ${taker} ${laterWords(calmSince - expiredAt)}` };
}

export type ChurnJudgement = { state: "active" } | { state: "ended"; endedAt: number; text: string };

/**
 * Flapping ends once the current holder has kept it for the recovery hold (since its tenure
 * began and since the last change seen, a hidden flap included), even while the flapping window
 * still counts the earlier changes.
 */
export function judgeChurn(
  changes: number,
  windowWords: string,
  lock: Pick<LockNow, "holder" | "holderSince" | "lastChangeAt">,
  nowMs: number,
  recoveryMs: number,
): ChurnJudgement {
  if (lock.holder === null || lock.holderSince === null) return { state: "active" };
  const calmSince = Math.max(lock.holderSince, lock.lastChangeAt ?? lock.holderSince);
  if (nowMs - calmSince < recoveryMs) return { state: "active" };
  return {
    state: "ended",
    endedAt: calmSince + recoveryMs,
    text: `settled: ${changes} holder changes in ${windowWords}, then ${lock.holder} held it from ${formatEventTime(calmSince)} on`,
  };
}
