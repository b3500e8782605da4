// A violation's cause in one sentence, and a key's causes in one sentence: what the drill-down
// leads with. Client-safe and pure.

import type { DrilldownEvent, LockChangeMarker, ViolationExplanation } from "@/lib/violations/drilldown-types";
import { formatCount, formatDuration, formatInstant } from "@/lib/violations/format";
import { CAUSE_LABEL, type CauseCounts, causePhrase, VIOLATION_CAUSES } from "@/lib/violations/cause-words";
import { findStallThroughMove, isExpiryBefore, movesOf, WAKE_SILENCE_MS } from "@/lib/violations/violation-cause";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

export type CauseContext = {
  event: DrilldownEvent;
  deployments: ReadonlyMap<string, DeploymentBand>;
  changes: ReadonlyMap<string, LeaderChangeMarker>;
  lockChanges: ReadonlyMap<string, LockChangeMarker>;
  windowMs: number;
  timeZone: string;
};

const pick = <T>(ids: readonly string[], map: ReadonlyMap<string, T>): T[] => ids.flatMap((id) => map.get(id) ?? []);

/** The change nearest the violation, or undefined. */
export function nearestChange<T extends { newSeenAt: string }>(changes: readonly T[], atMs: number): T | undefined {
  return [...changes].sort((a, b) => Math.abs(Date.parse(a.newSeenAt) - atMs) - Math.abs(Date.parse(b.newSeenAt) - atMs))[0];
}

/** One sentence: the cause's name, then the evidence that decided it. */
export function describeCause(explanation: ViolationExplanation, context: CauseContext): string {
  const { event, timeZone } = context;
  const label = CAUSE_LABEL[explanation.cause];
  const atMs = Date.parse(event.observedAt);
  switch (explanation.cause) {
    case "two-hands": {
      const other = explanation.othersInside[0];
      const earlier = other ? `${other.worker} (running since ${formatInstant(other.enteredAt, timeZone)})` : "another holder";
      return `${label}: ${event.worker} started ${event.key} while ${earlier} still ran it, both seen in the lock's own records by Baton's poller; the lock did not keep them apart.`;
    }
    case "rollout": {
      const d = pick(explanation.insideDeploymentIds, context.deployments)[0];
      const what = d
        ? `${d.service} ${d.version} was being deployed (started ${formatInstant(d.startedAt, timeZone)})`
        : `a deployment of ${event.service} covers it`;
      return `${label}: ${what} when ${event.worker} entered key ${event.key}; overlaps are expected while pods are replaced.`;
    }
    case "holder-stalled": {
      const expiry = pick(explanation.lockChangeIds, context.lockChanges)
        .filter((c) => isExpiryBefore(c, event.observedAt))
        .at(-1);
      const holder = expiry?.fromHolder ?? "its holder";
      return `${label}: the lock ${event.lock ?? ""} expired while ${holder} held it, and ${event.worker} entered key ${event.key} while the stalled holder's work was still inside.`;
    }
    case "worker-stalled": {
      const stall = findStallThroughMove({
        observedAt: event.observedAt,
        othersInside: explanation.othersInside,
        moves: movesOf(explanation.owner, pick(explanation.leaderChangeIds, context.changes)),
      });
      const other = explanation.othersInside[0];
      const wake = explanation.wakeAfterMove;
      if (stall === null && wake !== null) {
        const inside = other ? ` while ${other.worker} was inside it` : "";
        return `${label}: ${event.worker} had sent nothing for at least ${formatDuration(WAKE_SILENCE_MS)} when key ${event.key} moved from it to ${wake.to ?? "another worker"} at ${formatInstant(wake.changedAt, timeZone)}; it woke up and entered the key${inside}, no longer its own.`;
      }
      if (stall === null) {
        // Classified by a later violation of the key that names the same stay after the move was seen.
        const who = other ? `${other.worker} (inside since ${formatInstant(other.enteredAt, timeZone)})` : "a worker";
        return `${label}: ${who} stayed inside key ${event.key} while the key moved away from it, as a later violation of the key shows; ${event.worker} entered meanwhile.`;
      }
      const insideFor = formatDuration(atMs - Date.parse(stall.other.enteredAt));
      return `${label}: ${stall.other.worker} had been inside key ${event.key} for ${insideFor}; the key moved from it to ${stall.move.to ?? "another worker"} at ${formatInstant(stall.move.changedAt, timeZone)}, and ${event.worker} entered while ${stall.other.worker} was still inside.`;
    }
    case "failover-overlap": {
      const change = nearestChange(pick(explanation.leaderChangeIds, context.changes), atMs);
      const lockChange = nearestChange(pick(explanation.lockChangeIds, context.lockChanges), atMs);
      const what = change
        ? `the leader of ${change.subscription}${change.partition < 0 ? "" : ` partition ${change.partition}`} moved from ${change.fromHolder ?? "nobody"} to ${change.toHolder ?? "nobody"} at ${formatInstant(change.newSeenAt, timeZone)}`
        : lockChange
          ? `the lock ${lockChange.lock} passed from ${lockChange.fromHolder ?? "nobody"} to ${lockChange.toHolder ?? "nobody"} at ${formatInstant(lockChange.newSeenAt, timeZone)}`
          : `the key's owner changed within ±${formatDuration(context.windowMs)}`;
      return `${label}: ${what}, with no stall seen: a handover's brief overlap.`;
    }
    case "unexplained":
      return `${label}: no deployment of ${event.service}, no stall and no handover of its partition${event.lock === null ? "" : " or lock"} within ±${formatDuration(context.windowMs)}: investigate this one first.`;
  }
}

/** "3 violations: 2 rollout, 1 unexplained." Causes in precedence order; none: says so. */
export function describeCauseCounts(counts: CauseCounts): string {
  const total = VIOLATION_CAUSES.reduce((sum, cause) => sum + counts[cause], 0);
  if (total === 0) return "No violation.";
  const parts = VIOLATION_CAUSES.filter((cause) => counts[cause] > 0).map((cause) => `${formatCount(counts[cause])} ${causePhrase(cause)}`);
  return `${formatCount(total)} ${total === 1 ? "violation" : "violations"}: ${parts.join(", ")}.`;
}
