import { queryOptions } from "@tanstack/react-query";

import type { HealthReport } from "@/lib/health/health-report";

// react-query options of the health report: the header's verdict and the Alerts menu item's
// count. Client-safe.

async function fetchJson<T>(url: string, acceptStatuses: number[] = []): Promise<T> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok && !acceptStatuses.includes(response.status)) throw new Error(`${url} answered HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** The header's verdict and the Alerts menu item's count refresh this often. */
export const HEALTH_REFRESH_MS = 10_000;

export function healthQuery() {
  // 503 still carries a report (the database is down): show it rather than an error.
  return queryOptions({ queryKey: ["health"], queryFn: () => fetchJson<HealthReport>("/api/health", [503]), refetchInterval: HEALTH_REFRESH_MS });
}
