// A violation's explanation in plain words, for the drill-down: its cause in one sentence, then
// the evidence, each kind once (the nearest leader change, not every one: the drill-down lists
// them all in its own table). Client-safe and pure.

import { describeCause, nearestChange } from "@/lib/violations/describe-cause";
import { describeLockStory } from "@/lib/violations/describe-lock-story";
import { describeOwner } from "@/lib/violations/describe-owner";
import type { DrilldownEvent, LockChangeMarker, ViolationExplanation } from "@/lib/violations/drilldown-types";
import { formatDuration, formatInstant, formatOffset } from "@/lib/violations/format";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

function partitionWords(partition: number): string {
  return partition < 0 ? "the (non-partitioned) topic" : `partition ${partition}`;
}

function describeDeployment(d: DeploymentBand, timeZone: string): string {
  const end = d.finishedAt === null ? "still in progress" : `finished ${formatInstant(d.finishedAt, timeZone)}`;
  return `${d.service} ${d.version} (${d.environment}), started ${formatInstant(d.startedAt, timeZone)}, ${end}`;
}

function describeLeaderChange(c: LeaderChangeMarker, atMs: number, timeZone: string): string {
  const holders =
    c.kind === "HOLDER_LOST"
      ? `${c.fromHolder ?? "?"} lost it`
      : c.kind === "HOLDER_APPEARED"
        ? `${c.toHolder ?? "?"} took it`
        : `${c.fromHolder ?? "none"} → ${c.toHolder ?? "none"}`;
  const when =
    c.oldSeenAt === null
      ? `seen at ${formatInstant(c.newSeenAt, timeZone)}`
      : `between ${formatInstant(c.oldSeenAt, timeZone)} and ${formatInstant(c.newSeenAt, timeZone)}`;
  return `${c.kind.replaceAll("_", " ").toLowerCase()} on ${partitionWords(c.partition)} of ${c.subscription} (${c.cluster}): ${holders}, ${when} (${formatOffset(Date.parse(c.newSeenAt) - atMs)} the violation)`;
}

/**
 * Who was inside. The other worker's own event, when it is stored and is one of those the row
 * names, gives the existing sentence; otherwise the row's own list of who was inside (a client
 * in "violations+counts" mode stores no event for a clean entry) says who and for how long.
 */
function describeWhoWasInside(explanation: ViolationExplanation, event: DrilldownEvent): string[] {
  const others = event.counter === 1 ? "1 other worker" : `${event.counter} other workers`;
  const previous = explanation.previousEntry;
  const recorded = explanation.othersInside;
  const isPreviousInside = previous !== null && (recorded.length === 0 || recorded.some((o) => o.worker === previous.worker));
  if (previous && isPreviousInside) {
    return [`${event.worker} entered while ${others} held the key; the last other entry was ${previous.worker}, ${formatDuration(previous.gapMs)} earlier.`];
  }
  if (recorded.length === 0) return [`${event.worker} entered while ${others} held the key; no other worker's entry is recorded before it in this range.`];
  const lines = recorded.map(
    (other) => `${other.worker} had been inside key ${event.key} for ${formatDuration(other.insideForMs)} when ${event.worker} entered.`,
  );
  const unnamed = event.counter - recorded.length;
  if (unnamed > 0) lines.push(`${unnamed === 1 ? "1 more worker was" : `${unnamed} more workers were`} inside (the event names at most ${recorded.length}).`);
  return lines;
}

export type ExplanationWords = {
  /** The cause, in one sentence. */
  cause: string;
  /** What it was decided from, each kind of evidence once. */
  evidence: string[];
  /** The lock story, apart: the drill-down links it to the lock's own page. */
  lockStory: string | null;
};

/** The sentences of one violation: its cause, then who was inside, the owner, and what coincides. */
export function describeExplanation(
  explanation: ViolationExplanation,
  context: {
    event: DrilldownEvent;
    deployments: ReadonlyMap<string, DeploymentBand>;
    changes: ReadonlyMap<string, LeaderChangeMarker>;
    lockChanges: ReadonlyMap<string, LockChangeMarker>;
    windowMs: number;
    graceMs: number;
    timeZone: string;
  },
): ExplanationWords {
  const { event, timeZone } = context;
  const atMs = Date.parse(event.observedAt);
  const evidence: string[] = [...describeWhoWasInside(explanation, event)];
  if (explanation.owner !== null && event.resource !== null) {
    evidence.push(describeOwner(explanation.owner, { key: event.key, observedAt: event.observedAt, windowMs: context.windowMs, timeZone, explanation }));
  }
  for (const id of explanation.insideDeploymentIds) {
    const d = context.deployments.get(id);
    if (d) evidence.push(`Inside the deployment of ${describeDeployment(d, timeZone)} (with ${formatDuration(context.graceMs)} of grace).`);
  }
  const changes = explanation.leaderChangeIds.flatMap((id) => context.changes.get(id) ?? []);
  const nearest = nearestChange(changes, atMs);
  if (nearest) {
    const more = changes.length - 1;
    evidence.push(
      `Nearest leader change: ${describeLeaderChange(nearest, atMs, timeZone)}${more > 0 ? `; ${more} more within ±${formatDuration(context.windowMs)} (listed under Leader changes nearby)` : ""}.`,
    );
  }
  const nearby = explanation.nearbyDeploymentIds.flatMap((id) => context.deployments.get(id) ?? []);
  if (nearby.length > 0) {
    const first = nearby[0]!;
    evidence.push(
      `Nearby, not counted: deployment of ${describeDeployment(first, timeZone)}${first.service === event.service ? "" : " (another service)"}${nearby.length > 1 ? ` and ${nearby.length - 1} more` : ""}.`,
    );
  }
  return {
    cause: describeCause(explanation, {
      event,
      deployments: context.deployments,
      changes: context.changes,
      lockChanges: context.lockChanges,
      windowMs: context.windowMs,
      timeZone,
    }),
    evidence,
    lockStory: describeLockStory(explanation, { event, changes: context.lockChanges, windowMs: context.windowMs, timeZone }),
  };
}
