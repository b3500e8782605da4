import { queryOptions } from "@tanstack/react-query";

import { fetchApi } from "@/lib/client/fetch-api";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { DeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import type { DeploymentViolations } from "@/lib/violations/queries/get-deployment-violations";
import type { ViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import type { ViolationCause } from "@/lib/violations/cause-words";
import type { LeaderChangeMarkers, TopRanking, TopViolations, ViolationTimeline } from "@/lib/violations/violation-types";
import { liveInterval } from "@/lib/client/refresh-rate";

// react-query keys and fetchers of the violations read API (docs/http-api.md, "Violations read API"), one
// factory per read. Types come from server modules as types only.

/** Live (preset) ranges refresh this often: a minute bucket fills within a minute. */
export const VIOLATIONS_REFRESH_MS = 15_000;

/** A range as a query holds it: a live one by its length (now moves on), a fixed one by its ends. */
export type QueryRange = { fromMs: number; toMs: number; isLive: boolean };

function rangeKey(range: QueryRange) {
  return range.isLive ? { span: range.toMs - range.fromMs } : { from: range.fromMs, to: range.toMs };
}

function rangeParams(range: QueryRange): { from: number; to: number } {
  const to = range.isLive ? Date.now() : range.toMs;
  return { from: to - (range.toMs - range.fromMs), to };
}

export type ViolationFilters = { service: string | null; subscription: string | null; environment: string | null };

export function violationTimelineQuery(range: QueryRange, filters: ViolationFilters, timeZone: string) {
  return queryOptions({
    queryKey: ["violations", "timeline", rangeKey(range), filters, timeZone],
    queryFn: () => fetchApi<ViolationTimeline>("/api/v1/violations/timeline", { ...rangeParams(range), ...filters, tz: timeZone }),
    refetchInterval: range.isLive ? liveInterval(VIOLATIONS_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** Top keys and workers read raw events: refreshed less often than the chart. */
export const TOP_REFRESH_MS = 60_000;

export function topViolationsQuery(range: QueryRange, filters: ViolationFilters, options: { ranking: TopRanking; lists: string }) {
  return queryOptions({
    queryKey: ["violations", "top", rangeKey(range), filters, options],
    queryFn: () => fetchApi<TopViolations>("/api/v1/violations/top", { ...rangeParams(range), ...filters, ranking: options.ranking, lists: options.lists }),
    refetchInterval: range.isLive ? liveInterval(TOP_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** The page's violations with their causes and keys' owners: the latest 1,000, of one cause or all, with the counts per cause. */
export function violationCausesQuery(range: QueryRange, filters: ViolationFilters, cause: ViolationCause | null) {
  return queryOptions({
    queryKey: ["violations", "causes", rangeKey(range), filters.service, filters.subscription, cause],
    queryFn: () =>
      fetchApi<ViolationCauses>("/api/v1/violations/causes", { ...rangeParams(range), service: filters.service, subscription: filters.subscription, cause }),
    refetchInterval: range.isLive ? liveInterval(TOP_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

export function leaderChangeMarkersQuery(range: QueryRange, subscription: string | null, timeZone: string) {
  return queryOptions({
    queryKey: ["violations", "leader-changes", rangeKey(range), subscription, timeZone],
    queryFn: () => fetchApi<LeaderChangeMarkers>("/api/v1/violations/leader-changes", { ...rangeParams(range), subscription, tz: timeZone }),
    refetchInterval: range.isLive ? liveInterval(VIOLATIONS_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** An event target's `at` is its observedAt (ISO), when the link that led here carried it. */
export type DrilldownTarget = { kind: "key"; key: string; range: QueryRange } | { kind: "event"; eventId: string; at: string | null };

export function drilldownQuery(target: DrilldownTarget) {
  return queryOptions({
    queryKey: target.kind === "key" ? ["violations", "key", target.key, rangeKey(target.range)] : ["violations", "event", target.eventId, target.at],
    queryFn: () =>
      target.kind === "key"
        ? fetchApi<KeyDrilldown>("/api/v1/violations/key", { key: target.key, ...rangeParams(target.range) })
        : fetchApi<KeyDrilldown>("/api/v1/violations/event", { id: target.eventId, at: target.at }),
    refetchInterval: target.kind === "key" && target.range.isLive ? liveInterval(VIOLATIONS_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** The deployments page lists this many at most (the API allows up to 500). */
export const DEPLOYMENTS_PAGE_LIMIT = 200;

export function deploymentCoincidencesQuery(range: QueryRange, filters: { service: string | null; environment: string | null }) {
  return queryOptions({
    queryKey: ["violations", "deployments", rangeKey(range), filters],
    queryFn: () => fetchApi<DeploymentCoincidences>("/api/v1/violations/deployments", { ...rangeParams(range), ...filters, limit: DEPLOYMENTS_PAGE_LIMIT }),
    refetchInterval: range.isLive ? liveInterval(VIOLATIONS_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

export function deploymentViolationsQuery(id: string) {
  return queryOptions({
    queryKey: ["violations", "deployment", id],
    queryFn: () => fetchApi<DeploymentViolations>(`/api/v1/violations/deployments/${encodeURIComponent(id)}`, {}),
  });
}
