import "server-only";

import { z } from "zod";

import type { ClusterConfig } from "@/lib/config";
import type { ClusterHealth } from "@/lib/health/health-report";
import { PulsarAdminError, requestAdmin } from "@/lib/pulsar/transport";

const clusterListSchema = z.array(z.string());

/**
 * Asks the cluster's admin API for its cluster list: the cheapest call that proves the admin
 * API answers and the token is accepted.
 */
export async function checkCluster(cluster: ClusterConfig, timeoutMs: number): Promise<ClusterHealth> {
  const base = { name: cluster.name, adminUrl: cluster.adminUrl, poller: null };
  const started = performance.now();
  try {
    await requestAdmin(cluster, "admin/v2/clusters", clusterListSchema, { timeoutMs });
    return { ...base, status: "ok", reason: null, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (!(error instanceof PulsarAdminError)) throw error;
    if (error.isOutage) return { ...base, status: "down", reason: error.message, latencyMs: null };
    const reason = error.status === 401 || error.status === 403 ? `the admin API refused Baton's token (${error.message})` : error.message;
    return { ...base, status: "degraded", reason, latencyMs: Math.round(performance.now() - started) };
  }
}
