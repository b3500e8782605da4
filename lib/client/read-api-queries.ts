import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";

import type { LeadersBoard } from "@/lib/board/board-types";
import { fetchApi } from "@/lib/client/fetch-api";
import type { ConsumerReport } from "@/lib/queries/get-consumer";
import type { SubscriptionTimeline } from "@/lib/queries/get-subscription-timeline";
import type { ChangePage } from "@/lib/queries/list-subscription-changes";

// react-query keys and fetchers of the read API (docs/read-api.md), one factory per read.
// The types are imported from server modules as types only: nothing of them reaches the bundle.

/** How often the live views refresh: about a default poll interval. */
export const LIVE_REFRESH_MS = 5_000;


/** The board's read: every subscription in scope (filters by cluster, tenant, namespace and text apply in the browser, as you type). */
export function leadersQuery(params: { includeGone: boolean }) {
  return queryOptions({
    queryKey: ["leaders", params],
    queryFn: () => fetchApi<LeadersBoard>("/api/v1/leaders", { includeGone: params.includeGone || null }),
    refetchInterval: LIVE_REFRESH_MS,
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
    refetchInterval: options.isLive ? LIVE_REFRESH_MS : false,
    placeholderData: (previous) => previous,
  });
}

export function subscriptionChangesQuery(ref: SubscriptionRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean }) {
  return infiniteQueryOptions({
    queryKey: ["subscription-changes", ref, options.isLive ? { span: range.toMs - range.fromMs } : range],
    queryFn: ({ pageParam }) => {
      const toMs = options.isLive ? Date.now() : range.toMs;
      const fromMs = toMs - (range.toMs - range.fromMs);
      return fetchApi<ChangePage>("/api/v1/subscriptions/changes", { ...ref, from: fromMs, to: toMs, cursor: pageParam });
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: options.isLive ? LIVE_REFRESH_MS : false,
  });
}

export function consumerQuery(name: string, params: { cluster: string | null; span: number }) {
  return queryOptions({
    queryKey: ["consumer", name, params],
    queryFn: () => fetchApi<ConsumerReport>(`/api/v1/consumers/${encodeURIComponent(name)}`, { cluster: params.cluster, from: Date.now() - params.span }),
    refetchInterval: LIVE_REFRESH_MS,
    placeholderData: (previous) => previous,
  });
}
