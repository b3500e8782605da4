// What the lock a violation ran under did around it, in plain words: the failure a
// mutual-exclusivity counter catches behind a Redis lock is a holder that stalls past its TTL (a
// GC pause), the lock expiring, another worker taking it, and the first still acting. Client-safe
// and pure.

import type { DrilldownEvent, LockChangeMarker, ViolationExplanation } from "@/lib/violations/drilldown-types";
import { formatDuration, formatInstant } from "@/lib/violations/format";
import { isExpiryBefore } from "@/lib/violations/violation-cause";

const HOLD_STARTS = new Set(["HOLDER_APPEARED", "HOLDER_CHANGED", "HIDDEN_FLAP"]);

function acquiredAtOf(change: LockChangeMarker): string {
  return change.acquiredAt ?? change.newSeenAt;
}

/** Who the violation's row says was inside (its own list first, else the last other entry). */
function workerInside(explanation: ViolationExplanation): string | null {
  return explanation.othersInside[0]?.worker ?? explanation.previousEntry?.worker ?? null;
}

function describeEnding(change: LockChangeMarker): string {
  if (change.ending === "RELEASED") return "released it";
  if (change.ending === "TAKEN_OVER") return "lost it to a new token before its TTL ran out";
  return "lost it";
}

/**
 * One sentence per lock story: the latest expiry while held before the violation, with who took
 * the lock after it and who was still inside; else the latest handover; else that the lock did
 * not change hands at all (two workers inside under one held lock).
 */
export function describeLockStory(
  explanation: ViolationExplanation,
  context: { event: DrilldownEvent; changes: ReadonlyMap<string, LockChangeMarker>; windowMs: number; timeZone: string },
): string | null {
  const { event, timeZone } = context;
  if (event.lock === null) return null;
  const changes = explanation.lockChangeIds.flatMap((id) => context.changes.get(id) ?? []).sort((a, b) => a.newSeenAt.localeCompare(b.newSeenAt));
  if (changes.length === 0) {
    return `The lock ${event.lock} did not change hands within ±${formatDuration(context.windowMs)} of this violation: two workers were inside while it was held, which the lock should have made impossible.`;
  }
  const inside = workerInside(explanation);
  const stillInside = inside === null ? "" : `; ${inside} was still inside key ${event.key} when ${event.worker} entered`;
  const expiry = changes.filter((c) => isExpiryBefore(c, event.observedAt)).at(-1);
  if (expiry) {
    const expiredAt = expiry.expiresAtBefore ?? expiry.newSeenAt;
    const ttl = expiry.expiresAtBefore === null ? "" : ` (its TTL ended at ${formatInstant(expiry.expiresAtBefore, timeZone)})`;
    const next = expiry.kind === "HOLDER_CHANGED" ? expiry : changes.find((c) => HOLD_STARTS.has(c.kind) && c.newSeenAt >= expiry.newSeenAt && c !== expiry);
    const takeover =
      next && next.toHolder !== null
        ? `; ${next.toHolder} acquired it ${formatDuration(Math.max(0, Date.parse(acquiredAtOf(next)) - Date.parse(expiredAt)))} later`
        : "";
    return `The lock ${event.lock} expired while ${expiry.fromHolder ?? "its holder"} held it${ttl}${takeover}${stillInside}: a holder that stalled past its TTL and kept working.`;
  }
  const handover = changes.filter((c) => c.fromHolder !== null).at(-1) ?? changes.at(-1)!;
  const from = handover.fromHolder === null ? "" : `${handover.fromHolder} ${describeEnding(handover)}`;
  const to = handover.toHolder === null ? "" : `${handover.toHolder} acquired it at about ${formatInstant(acquiredAtOf(handover), timeZone)}`;
  return `The lock ${event.lock} changed hands: ${[from, to].filter(Boolean).join("; ")}${stillInside}.`;
}
