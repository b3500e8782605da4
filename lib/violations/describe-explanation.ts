// A violation's explanation in plain words, for the drill-down. Client-safe and pure.

import { describeLockStory } from "@/lib/violations/describe-lock-story";
import { describeOwner } from "@/lib/violations/describe-owner";
import type { DrilldownEvent, LockChangeMarker, Verdict, ViolationExplanation } from "@/lib/violations/drilldown-types";
import { formatDuration, formatInstant, formatOffset } from "@/lib/violations/format";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

export const VERDICT_LABEL: Record<Verdict, string> = {
  deployment: "During a deployment",
  failover: "Failover overlap",
  "deployment-and-failover": "Deployment and failover overlap",
  unexplained: "Unexplained: a real exclusivity failure",
};

function partitionWords(partition: number): string {
  return partition < 0 ? "the (non-partitioned) topic" : `partition ${partition}`;
}

function describeDeployment(d: DeploymentBand, timeZone: string): string {
  const end = d.finishedAt === null ? "still in progress" : `finished ${formatInstant(d.finishedAt, timeZone)}`;
  return `${d.service} ${d.version} (${d.environment}), started ${formatInstant(d.startedAt, timeZone)}, ${end}`;
}

function describeLeaderChange(c: LeaderChangeMarker, atMs: number, timeZone: string): string {
  const holders = c.kind === "HOLDER_LOST" ? `${c.fromHolder ?? "?"} lost it` : c.kind === "HOLDER_APPEARED" ? `${c.toHolder ?? "?"} took it` : `${c.fromHolder ?? "none"} → ${c.toHolder ?? "none"}`;
  const when = c.oldSeenAt === null ? `seen at ${formatInstant(c.newSeenAt, timeZone)}` : `between ${formatInstant(c.oldSeenAt, timeZone)} and ${formatInstant(c.newSeenAt, timeZone)}`;
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
  const lines = recorded.map((other) => `${other.worker} had been inside key ${event.key} for ${formatDuration(other.insideForMs)} when ${event.worker} entered.`);
  const unnamed = event.counter - recorded.length;
  if (unnamed > 0) lines.push(`${unnamed === 1 ? "1 more worker was" : `${unnamed} more workers were`} inside (the event names at most ${recorded.length}).`);
  return lines;
}

/** The sentences under one violation: verdict first, then who was inside, then what coincides. */
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
): string[] {
  const { event, timeZone } = context;
  const atMs = Date.parse(event.observedAt);
  const lines: string[] = [];
  if (explanation.verdict === "unexplained") {
    const holders = event.lock === null ? "no leader change of its subscription partition" : "no leader change of its subscription partition and no holder change of its lock";
    lines.push(`No deployment of ${event.service} and ${holders} within ±${formatDuration(context.windowMs)}: this is a real exclusivity failure.`);
  }
  lines.push(...describeWhoWasInside(explanation, event));
  if (explanation.owner !== null && event.resource !== null) {
    lines.push(describeOwner(explanation.owner, { key: event.key, observedAt: event.observedAt, windowMs: context.windowMs, timeZone, explanation }));
  }
  const lockStory = describeLockStory(explanation, { event, changes: context.lockChanges, windowMs: context.windowMs, timeZone });
  if (lockStory !== null) lines.push(lockStory);
  for (const id of explanation.insideDeploymentIds) {
    const d = context.deployments.get(id);
    if (d) lines.push(`Coincides with the deployment of ${describeDeployment(d, timeZone)} (counted as inside, with ${formatDuration(context.graceMs)} of grace).`);
  }
  for (const id of explanation.leaderChangeIds) {
    const c = context.changes.get(id);
    if (c) lines.push(`Coincides with a leader change (failover overlap): ${describeLeaderChange(c, atMs, timeZone)}.`);
  }
  for (const id of explanation.nearbyDeploymentIds) {
    const d = context.deployments.get(id);
    if (d) lines.push(`Nearby, not counted: deployment of ${describeDeployment(d, timeZone)}${d.service === event.service ? "" : " (another service)"}.`);
  }
  return lines;
}
