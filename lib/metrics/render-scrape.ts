import "server-only";

import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { readHealthVerdict } from "@/lib/health/read-health-verdict";
import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { readMetricSnapshot } from "@/lib/metrics/read-metric-snapshot";
import { buildSnapshotRegistry, renderHolderInfo } from "@/lib/metrics/render-metrics";
import { renderVerdict } from "@/lib/metrics/render-verdict";

/** The text of one scrape: the database's state and the verdict (same on every replica) and this process's own metrics. */
export async function renderScrape(db: Db): Promise<{ text: string; contentType: string }> {
  const config = getConfig();
  const [snapshot, verdict] = await Promise.all([
    readMetricSnapshot(db, {
      clusterNames: config.clusters.map((cluster) => cluster.name),
      maxResourceSeries: config.metrics.maxResourceSeries,
      deploymentGraceMs: config.violations.deploymentGraceMs,
    }),
    readHealthVerdict(db, { isReachable: true, reason: null }),
  ]);
  const processRegistry = getProcessMetrics().registry;
  const [state, own] = await Promise.all([buildSnapshotRegistry(snapshot).metrics(), processRegistry.metrics()]);
  return { text: `${renderHolderInfo(snapshot)}${renderVerdict(verdict)}${state}${own}`, contentType: processRegistry.contentType };
}
