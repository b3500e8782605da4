import "server-only";

import type { Config } from "@/lib/config";
import { checkDatabase } from "@/lib/db/check-database";
import { resolveDatabaseUrl } from "@/lib/db/database-url";
import { formatDuration } from "@/lib/board/format";
import { checkCluster } from "@/lib/health/check-cluster";
import { type ClusterHealth, type HealthReport, type PollerStatus, worstStatus } from "@/lib/health/health-report";
import { readHealthVerdict } from "@/lib/health/read-health-verdict";
import { judgeHealth } from "@/lib/health/health-verdict";
import { readPollerStatus } from "@/lib/health/read-poller-status";
import { readWorkerReplicas } from "@/lib/health/read-worker-replicas";
import type { Db } from "@/lib/db/client";

/** A poller whose last cycle is older than this many intervals is not keeping up. */
const STALE_POLL_INTERVALS = 3;

/**
 * The admin API answering is not enough: Baton's data is only current if its poller runs. A
 * cluster whose poller has no lease, or whose last cycle is old or failed, is degraded.
 */
function withPollerStatus(health: ClusterHealth, poller: PollerStatus | undefined, pollIntervalMs: number, now: number): ClusterHealth {
  if (!poller) return health;
  const withPoller = { ...health, poller };
  if (health.status !== "ok") return withPoller;
  if (poller.pollerId === null) return { ...withPoller, status: "degraded", reason: "no Baton worker polls this cluster (is the worker running?)" };
  const heartbeatAge = poller.heartbeatAt ? now - Date.parse(poller.heartbeatAt) : Number.POSITIVE_INFINITY;
  if (heartbeatAge > Math.max(30_000, STALE_POLL_INTERVALS * pollIntervalMs)) {
    const silence = poller.heartbeatAt ? `for ${formatDuration(heartbeatAge)}` : "at all";
    return { ...withPoller, status: "degraded", reason: `the poller ${poller.pollerId} has not been heard from ${silence}` };
  }
  const pollAge = poller.lastPollAt ? now - Date.parse(poller.lastPollAt) : Number.POSITIVE_INFINITY;
  if (poller.lastPollAt !== null && pollAge > STALE_POLL_INTERVALS * Math.max(pollIntervalMs, poller.lastCycleMs ?? 0)) {
    return { ...withPoller, status: "degraded", reason: `the last poll cycle finished ${formatDuration(pollAge)} ago` };
  }
  if ((poller.lastErrorCount ?? 0) > 0)
    return { ...withPoller, status: "degraded", reason: `the last poll cycle had ${poller.lastErrorCount} errors: ${poller.lastError}` };
  return withPoller;
}

/**
 * Checks the database and every configured cluster, all at once, each within the timeout; with
 * `db`, also each cluster's poller and the verdict (what fires now).
 */
export async function checkHealth(config: Config, db?: Db): Promise<HealthReport> {
  const [database, checked] = await Promise.all([
    checkDatabase(resolveDatabaseUrl(config), config.healthTimeoutMs),
    Promise.all(config.clusters.map((cluster) => checkCluster(cluster, config.healthTimeoutMs))),
  ]);
  const now = Date.now();
  const reachable = { isReachable: database.isReachable, reason: database.isReachable ? null : database.reason };
  const names = config.clusters.map((c) => c.name);
  const [pollers, verdict, replicas] =
    database.isReachable && db
      ? await Promise.all([
          readPollerStatus(db, names).catch(() => new Map<string, PollerStatus>()),
          readHealthVerdict(db, reachable, now).catch((error: Error) => {
            console.error("[baton] reading the alerts for the health verdict failed:", error);
            return judgeHealth({ nowMs: now, database: reachable, readError: error.message, firing: [], pending: 0, evaluatorHeartbeatMs: null });
          }),
          readWorkerReplicas(db, names).catch(() => []),
        ])
      : [new Map<string, PollerStatus>(), judgeHealth({ nowMs: now, database: reachable, firing: [], pending: 0, evaluatorHeartbeatMs: null }), []];
  const clusters = checked.map((health, i) => withPollerStatus(health, pollers.get(health.name), config.clusters[i]!.pollIntervalMs, now));
  const databaseHealth = database.isReachable
    ? { status: "ok" as const, reason: null, latencyMs: database.latencyMs, isEmbedded: config.databaseUrl === null }
    : { status: "down" as const, reason: database.reason, latencyMs: null, isEmbedded: config.databaseUrl === null };
  // Without its database Baton shows nothing true: down. A cluster that is down leaves Baton
  // serving (with stale data for that cluster): degraded.
  const clusterStatuses = clusters.map((c) => (c.status === "ok" ? "ok" : "degraded") as "ok" | "degraded");
  return {
    status: worstStatus([databaseHealth.status, ...clusterStatuses]),
    verdict,
    checkedAt: new Date().toISOString(),
    database: databaseHealth,
    clusters,
    replicas,
  };
}
