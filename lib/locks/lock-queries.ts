import { queryOptions } from "@tanstack/react-query";

import type { LocksBoard } from "@/lib/board/lock-types";
import { fetchApi } from "@/lib/client/fetch-api";
import { CHANGE_PAGE_SIZE, currentRange, LIVE_REFRESH_MS, rangeKey } from "@/lib/client/live-reads";
import { liveInterval } from "@/lib/client/refresh-rate";
import type { LockTimeline } from "@/lib/locks/get-lock-timeline";
import type { LockChangePage } from "@/lib/locks/list-lock-changes";

// react-query keys and fetchers of the read API's locks (docs/http-api.md), one factory per read.
// The types are imported from server modules as types only: nothing of them reaches the bundle.

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
    queryFn: () =>
      fetchApi<LockTimeline>("/api/v1/locks/timeline", { ...ref, ...currentRange(range, options.isLive), deployments: options.allDeployments ? "all" : null }),
    refetchInterval: options.isLive ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}

export function lockChangesPageQuery(ref: LockPageRef, range: { fromMs: number; toMs: number }, options: { isLive: boolean; cursor: string | null }) {
  return queryOptions({
    queryKey: ["lock-changes-page", ref, rangeKey(range, options.isLive), options.cursor],
    queryFn: () =>
      fetchApi<LockChangePage>("/api/v1/locks/changes", { ...ref, ...currentRange(range, options.isLive), limit: CHANGE_PAGE_SIZE, cursor: options.cursor }),
    refetchInterval: options.isLive && options.cursor === null ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}
