import { queryOptions } from "@tanstack/react-query";

import { fetchApi } from "@/lib/client/fetch-api";
import { LIVE_REFRESH_MS } from "@/lib/client/live-reads";
import { liveInterval } from "@/lib/client/refresh-rate";
import type { ConsumerReport } from "@/lib/consumers/get-consumer";

// react-query keys and fetchers of the read API's consumer report (docs/http-api.md). The type
// is imported from a server module as a type only: nothing of it reaches the bundle.

export function consumerQuery(name: string, params: { cluster: string | null; span: number }) {
  return queryOptions({
    queryKey: ["consumer", name, params],
    queryFn: () => fetchApi<ConsumerReport>(`/api/v1/consumers/${encodeURIComponent(name)}`, { cluster: params.cluster, from: Date.now() - params.span }),
    refetchInterval: liveInterval(LIVE_REFRESH_MS),
    placeholderData: (previous) => previous,
  });
}
