import { queryOptions } from "@tanstack/react-query";

import type { AlertView } from "@/lib/alerts/alert-types";
import { fetchApi } from "@/lib/client/fetch-api";
import { LIVE_REFRESH_MS } from "@/lib/client/live-reads";
import { liveInterval } from "@/lib/client/refresh-rate";

// react-query options for the Alerts page and the markers. Client-safe.

export type AlertListAnswer = { generatedAt: string; alerts: AlertView[] };

/** Firing, pending and the latest resolved alerts, refreshed live. */
export function alertsQuery() {
  return queryOptions({
    queryKey: ["alerts"],
    queryFn: () => fetchApi<AlertListAnswer>("/api/v1/alerts", {}),
    refetchInterval: liveInterval(LIVE_REFRESH_MS),
    placeholderData: (previous) => previous,
  });
}

/** The alerts of one place (a subscription, a lock, a service) active in a range, for the charts' markers. */
export function alertMarkersQuery(
  where: { rule?: string; cluster?: string; resource?: string; subscription?: string; service?: string | null },
  range: { fromMs: number; toMs: number },
  isLive: boolean,
) {
  return queryOptions({
    queryKey: ["alert-markers", where, isLive ? "live" : range],
    queryFn: () => fetchApi<AlertListAnswer>("/api/v1/alerts", { ...where, from: range.fromMs, to: range.toMs, limit: 500 }),
    refetchInterval: isLive ? liveInterval(LIVE_REFRESH_MS) : false,
    placeholderData: (previous) => previous,
  });
}
