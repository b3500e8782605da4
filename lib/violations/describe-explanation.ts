// A violation's explanation in plain words, for the drill-down. Client-safe and pure.

import type { DrilldownEvent, Verdict, ViolationExplanation } from "@/lib/violations/drilldown-types";
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

/** The sentences under one violation: verdict first, then who was inside, then what coincides. */
export function describeExplanation(
  explanation: ViolationExplanation,
  context: {
    event: DrilldownEvent;
    deployments: ReadonlyMap<string, DeploymentBand>;
    changes: ReadonlyMap<string, LeaderChangeMarker>;
    windowMs: number;
    graceMs: number;
    timeZone: string;
  },
): string[] {
  const { event, timeZone } = context;
  const atMs = Date.parse(event.observedAt);
  const lines: string[] = [];
  if (explanation.verdict === "unexplained") {
    lines.push(`No deployment of ${event.service} and no leader change of its subscription partition within ±${formatDuration(context.windowMs)}: this is a real exclusivity failure.`);
  }
  const others = event.counter === 1 ? "1 other worker" : `${event.counter} other workers`;
  if (explanation.previousEntry) {
    lines.push(`${event.worker} entered while ${others} held the key; the last other entry was ${explanation.previousEntry.worker}, ${formatDuration(explanation.previousEntry.gapMs)} earlier.`);
  } else {
    lines.push(`${event.worker} entered while ${others} held the key; no other worker's entry is recorded before it in this range.`);
  }
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
