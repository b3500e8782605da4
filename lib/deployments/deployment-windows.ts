// The classification rule: a violation is "inside a deployment" when a deployment of the same
// service covers the minute it happened in, from the deployment's start to its finish plus the
// grace period (see deploymentWindow for why whole minutes).
// Client-safe and pure; the SQL in lib/violations/queries implements the same rule and the
// integration tests hold the two to each other.

import { floorMinute, MINUTE_MS } from "@/lib/violations/time-buckets";

/**
 * An unfinished deployment counts as in progress until now, but for at most this long after it
 * started (as on the leaders board): a rollout whose "finished" call never came must not hide
 * every later violation of its service.
 */
export const OPEN_DEPLOYMENT_MAX_MS = 24 * 60 * 60 * 1000;

export type DeploymentTimes = { service: string; startedAtMs: number; finishedAtMs: number | null };

/** A half-open interval [start, end) in epoch ms. */
export type Window = { start: number; end: number };

/** When a deployment ended for classification: its finish, or now (at most a day after its start). */
export function effectiveEndMs(deployment: Pick<DeploymentTimes, "startedAtMs" | "finishedAtMs">, nowMs: number): number {
  const end = deployment.finishedAtMs ?? Math.min(nowMs, deployment.startedAtMs + OPEN_DEPLOYMENT_MAX_MS);
  return Math.max(end, deployment.startedAtMs);
}

/**
 * The classification window: every minute that [startedAt, end + grace] touches, from the
 * minute the deployment started in through the minute its grace period ends in, as
 * [start, end) on minute boundaries. Whole minutes because the rollup counts whole minutes: a
 * violation is inside exactly when its minute is, so the chart (rollup), the top lists and the
 * drill-down (raw events) always agree. The cost is at most a minute of extra "inside" at each
 * end, below the clock skew between the CI system that reports deployments and the workers.
 */
export function deploymentWindow(deployment: Pick<DeploymentTimes, "startedAtMs" | "finishedAtMs">, graceMs: number, nowMs: number): Window {
  return { start: floorMinute(deployment.startedAtMs), end: floorMinute(effectiveEndMs(deployment, nowMs) + graceMs) + MINUTE_MS };
}

/** Sorted, disjoint windows: overlapping or adjacent ones become one. */
export function mergeWindows(windows: readonly Window[]): Window[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  const merged: Window[] = [];
  for (const window of sorted) {
    const last = merged[merged.length - 1];
    if (last && window.start <= last.end) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

/** Each service's merged windows. */
export function windowsByService(deployments: readonly DeploymentTimes[], graceMs: number, nowMs: number): Map<string, Window[]> {
  const raw = new Map<string, Window[]>();
  for (const d of deployments) {
    const list = raw.get(d.service) ?? [];
    list.push(deploymentWindow(d, graceMs, nowMs));
    raw.set(d.service, list);
  }
  return new Map([...raw].map(([service, list]) => [service, mergeWindows(list)]));
}

/** Whether an instant (or a rollup minute's start) lies in one of the merged windows (binary search). */
export function isInsideWindows(atMs: number, merged: readonly Window[]): boolean {
  let low = 0;
  let high = merged.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const window = merged[middle]!;
    if (atMs < window.start) high = middle - 1;
    else if (atMs >= window.end) low = middle + 1;
    else return true;
  }
  return false;
}

/** Whether a violation of `service` at `atMs` is inside a deployment: the rule, for one event. */
export function isViolationInside(service: string, atMs: number, windows: ReadonlyMap<string, readonly Window[]>): boolean {
  return isInsideWindows(atMs, windows.get(service) ?? []);
}
