import { queryOptions } from "@tanstack/react-query";

import type { LeadersBoard } from "@/lib/board/board-types";
import type { LocksBoard } from "@/lib/board/lock-types";
import { fetchApi } from "@/lib/client/fetch-api";
import type { ConsumerReport } from "@/lib/queries/get-consumer";
import type { LockTimeline } from "@/lib/queries/get-lock-timeline";
import type { LockChangePage } from "@/lib/queries/list-lock-changes";
import type { SubscriptionTimeline } from "@/lib/queries/get-subscription-timeline";
import type { ChangePage } from "@/lib/queries/list-subscription-changes";
import { liveInterval } from "@/lib/client/refresh-rate";

// react-query keys and fetchers of the read API (docs/http-api.md), one factory per read.
// The types are imported from server modules as types only: nothing of them reaches the bundle.

/** How often the live views refresh: about a default poll interval. */
export const LIVE_REFRESH_MS = 5_000;


/** The board's read: every subscription in scope (filters by cluster, tenant, namespace and text apply in the browser, as you type). */
export function leadersQuery(params: { includeGone: boolean }) {
  return queryOptions({
    queryKey: ["leaders", params],
    queryFn: () => fetchApi<LeadersBoard>("/api/v1/leaders", { includeGone: params.includeGone || null }),
    refetchInterval: liveInterval(LIVE_REFRESH_MS),
    // Keep showing the last answer while a refresh (or a toggle) loads: no flash, no lost scroll.
    placeholderData: (previous) => previous,
  });
}

export type SubscriptionRef = { cluster: string; topic: string; subscription: string };

export function subscriptionTimelineQuery(ref: SubscriptionRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean; allDeployments: boolean }) {
  return queryOptions({
    // A live range is keyed by its length, so that "now" moving on does not make a new entry.
    queryKey: ["subscription-timeline", ref, options.isLive ? { span: range.toMs - range.fromMs } : range, options.allDeployments],
    queryFn: () => {
      const toMs = options.isLive ? Date.now() : range.toMs;
      const fromMs = toMs - (range.toMs - range.fromMs);
      return fetchApi<SubscriptionTimeline>("/api/v1/subscriptions/timeline", { ...ref, from: fromMs, to: toMs, deployments: options.allDeployments ? "all" : null });
    },
    refetchInterval: options.isLive ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** Changes a page shows at a time (newer and older pages by cursor). */
export const CHANGE_PAGE_SIZE = 50;

/** A live range is keyed by its length, so that "now" moving on does not make a new entry. */
function rangeKey(range: { fromMs: number; toMs: number }, isLive: boolean) {
  return isLive ? { span: range.toMs - range.fromMs } : range;
}

/** The range to ask for now: a live one ends now and keeps its length. */
function currentRange(range: { fromMs: number; toMs: number }, isLive: boolean): { from: number; to: number } {
  const to = isLive ? Date.now() : range.toMs;
  return { from: to - (range.toMs - range.fromMs), to };
}

/** One page of a subscription's changes: the newest (cursor null) refreshes while live; older pages stay as read. */
export function subscriptionChangesPageQuery(ref: SubscriptionRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean; cursor: string | null }) {
  return queryOptions({
    queryKey: ["subscription-changes-page", ref, rangeKey(range, options.isLive), options.cursor],
    queryFn: () => fetchApi<ChangePage>("/api/v1/subscriptions/changes", { ...ref, ...currentRange(range, options.isLive), limit: CHANGE_PAGE_SIZE, cursor: options.cursor }),
    refetchInterval: options.isLive && options.cursor === null ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** The locks board: every lock in scope (filters by cluster, kind and text apply in the browser). */
export function locksQuery(params: { includeGone: boolean }) {
  return queryOptions({
    queryKey: ["locks", params],
    queryFn: () => fetchApi<LocksBoard>("/api/v1/locks", { includeGone: params.includeGone || null }),
    refetchInterval: liveInterval(LIVE_REFRESH_MS),
    placeholderData: (previous) => previous,
  });
}

/** One lock (key) or a pattern's locks, in one cluster. */
export type LockPageRef = { cluster: string; key: string | null; pattern: string | null };

export function lockTimelineQuery(ref: LockPageRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean; allDeployments: boolean }) {
  return queryOptions({
    queryKey: ["lock-timeline", ref, rangeKey(range, options.isLive), options.allDeployments],
    queryFn: () => fetchApi<LockTimeline>("/api/v1/locks/timeline", { ...ref, ...currentRange(range, options.isLive), deployments: options.allDeployments ? "all" : null }),
    refetchInterval: options.isLive ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

export function lockChangesPageQuery(ref: LockPageRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean; cursor: string | null }) {
  return queryOptions({
    queryKey: ["lock-changes-page", ref, rangeKey(range, options.isLive), options.cursor],
    queryFn: () => fetchApi<LockChangePage>("/api/v1/locks/changes", { ...ref, ...currentRange(range, options.isLive), limit: CHANGE_PAGE_SIZE, cursor: options.cursor }),
    refetchInterval: options.isLive && options.cursor === null ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

export function consumerQuery(name: string, params: { cluster: string | null; span: number }) {
  return queryOptions({
    queryKey: ["consumer", name, params],
    queryFn: () => fetchApi<ConsumerReport>(`/api/v1/consumers/${encodeURIComponent(name)}`, { cluster: params.cluster, from: Date.now() - params.span }),
    refetchInterval: liveInterval(LIVE_REFRESH_MS),
    placeholderData: (previous) => previous,
  });
}
