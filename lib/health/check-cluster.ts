import "server-only";

import type { ClusterConfig } from "@/lib/config";
import type { ClusterHealth } from "@/lib/health/health-report";
import { sourceKindOf } from "@/lib/sources/registry";

/** Asks the cluster whether it answers, the cheapest way its kind knows. */
export async function checkCluster(cluster: ClusterConfig, timeoutMs: number): Promise<ClusterHealth> {
  const source = sourceKindOf(cluster);
  const base = { name: cluster.name, kind: cluster.kind, adminUrl: source.describe(cluster).endpoint, poller: null };
  const started = performance.now();
  const answer = await source.checkReachable(cluster, timeoutMs);
  return { ...base, ...answer, latencyMs: answer.status === "down" ? null : Math.round(performance.now() - started) };
}
