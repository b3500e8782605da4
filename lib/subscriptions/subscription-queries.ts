import { queryOptions } from "@tanstack/react-query";

import type { LeadersBoard } from "@/lib/board/board-types";
import { fetchApi } from "@/lib/client/fetch-api";
import { CHANGE_PAGE_SIZE, currentRange, LIVE_REFRESH_MS, rangeKey } from "@/lib/client/live-reads";
import { liveInterval } from "@/lib/client/refresh-rate";
import type { SubscriptionTimeline } from "@/lib/subscriptions/get-subscription-timeline";
import type { ChangePage } from "@/lib/subscriptions/list-subscription-changes";

// react-query keys and fetchers of the read API's leaders and subscriptions (docs/http-api.md),
// one factory per read. The types are imported from server modules as types only: nothing of
// them reaches the bundle.

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

export function subscriptionTimelineQuery(
  ref: SubscriptionRef,
  range: { fromMs: number; toMs: number },
  options: { isLive: boolean; allDeployments: boolean },
) {
  return queryOptions({
    // A live range is keyed by its length, so that "now" moving on does not make a new entry.
    queryKey: ["subscription-timeline", ref, options.isLive ? { span: range.toMs - range.fromMs } : range, options.allDeployments],
    queryFn: () => {
      const toMs = options.isLive ? Date.now() : range.toMs;
      const fromMs = toMs - (range.toMs - range.fromMs);
      return fetchApi<SubscriptionTimeline>("/api/v1/subscriptions/timeline", {
        ...ref,
        from: fromMs,
        to: toMs,
        deployments: options.allDeployments ? "all" : null,
      });
    },
    refetchInterval: options.isLive ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

/** One page of a subscription's changes: the newest (cursor null) refreshes while live; older pages stay as read. */
export function subscriptionChangesPageQuery(
  ref: SubscriptionRef,
  range: { fromMs: number; toMs: number },
  options: { isLive: boolean; cursor: string | null },
) {
  return queryOptions({
    queryKey: ["subscription-changes-page", ref, rangeKey(range, options.isLive), options.cursor],
    queryFn: () =>
      fetchApi<ChangePage>("/api/v1/subscriptions/changes", {
        ...ref,
        ...currentRange(range, options.isLive),
        limit: CHANGE_PAGE_SIZE,
        cursor: options.cursor,
      }),
    refetchInterval: options.isLive && options.cursor === null ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}
