import "server-only";

import type { Config } from "@/lib/config";
import { checkDatabase } from "@/lib/db/check-database";
import { resolveDatabaseUrl } from "@/lib/db/database-url";
import { checkCluster } from "@/lib/health/check-cluster";
import { type HealthReport, worstStatus } from "@/lib/health/health-report";

/** Checks the database and every configured cluster, all at once, each within the timeout. */
export async function checkHealth(config: Config): Promise<HealthReport> {
  const [database, clusters] = await Promise.all([
    checkDatabase(resolveDatabaseUrl(config), config.healthTimeoutMs),
    Promise.all(config.clusters.map((cluster) => checkCluster(cluster, config.healthTimeoutMs))),
  ]);
  const databaseHealth = database.isReachable
    ? { status: "ok" as const, reason: null, latencyMs: database.latencyMs, isEmbedded: config.databaseUrl === null }
    : { status: "down" as const, reason: database.reason, latencyMs: null, isEmbedded: config.databaseUrl === null };
  // Without its database Baton shows nothing true: down. A cluster that is down leaves Baton
  // serving (with stale data for that cluster): degraded.
  const clusterStatuses = clusters.map((c) => (c.status === "ok" ? "ok" : "degraded") as "ok" | "degraded");
  return {
    status: worstStatus([databaseHealth.status, ...clusterStatuses]),
    checkedAt: new Date().toISOString(),
    database: databaseHealth,
    clusters,
  };
}
