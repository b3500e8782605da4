// What the violations, drill-down and deployments pages keep in their URL: the range (a preset
// ending now, `range=1h|6h|24h|7d`, or a fixed `from`/`to`, ISO) and the filters. The presets
// are the leader timeline's. Client-safe and pure.

import { lockHref } from "@/lib/board/links";
import { isRangePreset, type RangePreset, type RangeSelection } from "@/lib/timeline/time-range";
import { CHART_MODES, type ChartMode } from "@/lib/violations/chart-data";
import { parseLockRef } from "@/lib/violations/lock-ref";
import { VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import type { TopRanking } from "@/lib/violations/violation-types";

/** The violation pages open on the last day (the leader timelines on the last 6 hours). */
export const DEFAULT_VIOLATIONS_PRESET: RangePreset = "24h";

export type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

export function readParam(params: ParamSource, name: string): string | null {
  const value = params instanceof URLSearchParams ? params.get(name) : params[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === null || text.trim() === "" ? null : text;
}

/**
 * A fixed from/to when both parse and from < to (range=custom is accepted too); a live range
 * since `from` when only it is given; else the preset; else the default.
 */
export function readRange(params: ParamSource, defaultPreset: RangePreset = DEFAULT_VIOLATIONS_PRESET): RangeSelection {
  const from = readParam(params, "from");
  const to = readParam(params, "to");
  if (from !== null && to !== null) {
    const fromMs = Date.parse(from);
    const toMs = Date.parse(to);
    if (Number.isFinite(fromMs) && Number.isFinite(toMs) && fromMs < toMs)
      return { preset: "custom", from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() };
  }
  if (from !== null && to === null && readParam(params, "range") === null && Number.isFinite(Date.parse(from)))
    return { preset: "since", from: new Date(Date.parse(from)).toISOString() };
  const range = readParam(params, "range");
  return { preset: range !== null && isRangePreset(range) ? range : defaultPreset };
}

/** Whether the URL names a range at all; else the page fits one to its data (fitRangeToData). */
export function namesRange(params: ParamSource): boolean {
  return readParam(params, "range") !== null || readParam(params, "from") !== null;
}

export function writeRange(selection: RangeSelection): Record<string, string> {
  if (selection.preset === "since") return { from: selection.from };
  return selection.preset === "custom" ? { from: selection.from, to: selection.to } : { range: selection.preset };
}

export type ViolationsViewState = {
  range: RangeSelection;
  service: string | null;
  subscription: string | null;
  /** Only deployments of this environment classify. */
  environment: string | null;
  mode: ChartMode;
  showLeaderChanges: boolean;
  /** How the top lists rank: by all violations or by those outside deployments. */
  ranking: TopRanking;
  /** The cause list's filter: one cause, or all (null). */
  cause: ViolationCause | null;
};

function readCause(params: ParamSource): ViolationCause | null {
  const cause = readParam(params, "cause");
  return VIOLATION_CAUSES.find((c) => c === cause) ?? null;
}

export function readViolationsView(params: ParamSource): ViolationsViewState {
  const mode = readParam(params, "mode");
  return {
    range: readRange(params),
    service: readParam(params, "service"),
    subscription: readParam(params, "subscription"),
    environment: readParam(params, "environment"),
    mode: mode !== null && (CHART_MODES as readonly string[]).includes(mode) ? (mode as ChartMode) : "classification",
    showLeaderChanges: readParam(params, "changes") === "1",
    ranking: readParam(params, "rank") === "outside" ? "outside" : "violations",
    cause: readCause(params),
  };
}

/** The URL's query for a view state; defaults are left out. */
export function writeViolationsView(state: ViolationsViewState): URLSearchParams {
  const params = new URLSearchParams(writeRange(state.range));
  if (state.service !== null) params.set("service", state.service);
  if (state.subscription !== null) params.set("subscription", state.subscription);
  if (state.environment !== null) params.set("environment", state.environment);
  if (state.mode !== "classification") params.set("mode", state.mode);
  if (state.showLeaderChanges) params.set("changes", "1");
  if (state.ranking !== "violations") params.set("rank", state.ranking);
  if (state.cause !== null) params.set("cause", state.cause);
  return params;
}

/** The violations page for one service over a span (a deployment's window, say). */
export function violationsHref(target: { service: string; fromMs: number; toMs: number }): string {
  return `/violations?${new URLSearchParams({ from: new Date(target.fromMs).toISOString(), to: new Date(target.toMs).toISOString(), service: target.service })}`;
}

/**
 * The drill-down's URL for a key over a range, or for one event: with the event's observedAt
 * (`at`), which lets the lookup read the one partition of its hour instead of every stored one.
 */
export function drilldownHref(target: { key: string; range: RangeSelection } | { eventId: string; observedAt: string }): string {
  const params =
    "eventId" in target
      ? new URLSearchParams({ event: target.eventId, at: target.observedAt })
      : new URLSearchParams({ key: target.key, ...writeRange(target.range) });
  return `/violations/drilldown?${params}`;
}

/** How far around a violation its lock's page opens: the lock's holds just before and after it. */
const LOCK_STORY_AROUND_MS = 5 * 60_000;

/** The page of the lock a violation ran under ("<cluster>/<lock key>"), around the violation; null when the name is not a lock's. */
export function lockStoryHref(lock: string, observedAt: string): string | null {
  const ref = parseLockRef(lock);
  if (ref === null) return null;
  const atMs = Date.parse(observedAt);
  return lockHref(ref, { range: "custom", from: new Date(atMs - LOCK_STORY_AROUND_MS).toISOString(), to: new Date(atMs + LOCK_STORY_AROUND_MS).toISOString() });
}

export type DeploymentsViewState = { range: RangeSelection; service: string | null; environment: string | null };

/** The deployments page looks further back by default: a week of rollouts. */
export const DEPLOYMENTS_DEFAULT_PRESET: RangePreset = "7d";

export function readDeploymentsView(params: ParamSource): DeploymentsViewState {
  return { range: readRange(params, DEPLOYMENTS_DEFAULT_PRESET), service: readParam(params, "service"), environment: readParam(params, "environment") };
}

export function writeDeploymentsView(state: DeploymentsViewState): URLSearchParams {
  const params = new URLSearchParams(writeRange(state.range));
  if (state.service !== null) params.set("service", state.service);
  if (state.environment !== null) params.set("environment", state.environment);
  return params;
}
