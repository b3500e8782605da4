// Words for locks: how a hold ended, a change as a sentence, the TTL left, a shortened token.
// Pure and client-safe (the time zone is a parameter so that tests do not depend on the machine's).

import { formatDuration, formatPreciseClock } from "@/lib/board/format";
import type { ChangeKind, HoldEnding } from "@/lib/poller/change";

export const ENDING_WORDS: Record<HoldEnding, string> = { RELEASED: "released", EXPIRED: "expired while held", TAKEN_OVER: "taken over" };

/** What a lock change needs to be told in words. */
export type LockChangeFacts = {
  kind: ChangeKind;
  ending: HoldEnding | null;
  fromHolder: string | null;
  toHolder: string | null;
  isDuringGap: boolean;
  details: Record<string, unknown>;
};

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** "(it held it since 10:02:01.100; its TTL ended at 10:02:04.200)", with what is known of it. */
function describeHold(details: Record<string, unknown>, timeZone: string | undefined, withExpiry: boolean): string {
  const heldSince = text(details.heldSince);
  const expiredAt = withExpiry ? text(details.expiresAtBefore) : null;
  const parts = [
    heldSince ? `it held it since ${formatPreciseClock(heldSince, timeZone)}` : null,
    expiredAt ? `its TTL ended at ${formatPreciseClock(expiredAt, timeZone)}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}

/**
 * A lock's change in one sentence, e.g. "expired while held by pod-a (it held it since
 * 10:02:01.100; its TTL ended at 10:02:04.200); pod-b acquired it".
 */
export function describeLockChange(change: LockChangeFacts, timeZone?: string): string {
  const from = change.fromHolder ?? "its holder";
  const next = change.kind === "HOLDER_LOST" || change.toHolder === null ? "nobody holds it" : `${change.toHolder} acquired it`;
  let sentence: string;
  if (change.kind === "HOLDER_APPEARED") sentence = `${change.toHolder ?? "someone"} acquired it`;
  else if (change.kind === "CONSUMERS_CHANGED") sentence = `the waiters changed while ${change.toHolder ?? "nobody"} held it`;
  else if (change.ending === "EXPIRED") sentence = `expired while held by ${from}${describeHold(change.details, timeZone, true)}; ${next}`;
  else if (change.ending === "RELEASED") sentence = `${from} released it${describeHold(change.details, timeZone, false)}; ${next}`;
  else if (change.ending === "TAKEN_OVER") sentence = `taken over: ${change.toHolder ?? "another holder"}'s token replaced ${from}'s before its TTL ended`;
  else if (change.kind === "HIDDEN_FLAP") sentence = `${from} acquired it again with a new token`;
  // Neither a release, an expiry nor a take-over was seen: none is claimed.
  else sentence = `${from}'s hold ended, how is not known; ${next}`;
  return change.isDuringGap ? `${sentence} (while polls failed: when exactly is not known)` : sentence;
}

/**
 * The TTL left, in neutral words: "12 s left" while the expiry is ahead; once it has passed,
 * what the last read said and how old that read is ("TTL 4 s at last read, 7 s ago"), or "no
 * TTL". Never "expired": an expiry counted from a read seconds old is a guess, and only the
 * expired-while-held rule, which the poller's next read decides, may say a lock expired (so the
 * card cannot say "expired" while the health verdict says OK).
 */
export function formatTtlLeft(expiresAt: string | null, lastReadAt: string | null, nowMs: number): string {
  if (expiresAt === null) return "no TTL";
  const expiresMs = Date.parse(expiresAt);
  if (expiresMs >= nowMs) return `${formatDuration(expiresMs - nowMs)} left`;
  if (lastReadAt === null) return `TTL due ${formatDuration(nowMs - expiresMs)} ago, not read since`;
  const readMs = Date.parse(lastReadAt);
  return `TTL ${formatDuration(Math.max(0, expiresMs - readMs))} at last read, ${formatDuration(Math.max(0, nowMs - readMs))} ago`;
}

/** "6f1c9a2e…b7d0": enough of a token to tell two apart. */
export function shortenToken(token: string | null): string {
  if (token === null) return "—";
  return token.length <= 16 ? token : `${token.slice(0, 8)}…${token.slice(-4)}`;
}
