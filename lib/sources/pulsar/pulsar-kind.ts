import "server-only";

import { z } from "zod";

import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";
import { pulsarDescription } from "@/lib/sources/pulsar/pulsar-description";
import { openPulsarCycles } from "@/lib/sources/pulsar/pulsar-cycles";
import {
  type PulsarClusterConfig,
  type PulsarClusterEntry,
  pulsarClusterSchema,
  resolvePulsarCluster,
  type ScopeConfig,
} from "@/lib/sources/pulsar/pulsar-config";
import { PulsarAdminError, requestAdmin } from "@/lib/pulsar/transport";

const clusterListSchema = z.array(z.string());

function describeScope(scope: ScopeConfig): string {
  if (scope.everything) return "everything (all tenants but pulsar)";
  return [...scope.tenants.map((t) => `tenant ${t}`), ...scope.namespaces.map((n) => `namespace ${n}`), ...scope.topics].join(", ");
}

/** Pulsar subscriptions: per partition, the active consumer, standbys, hash ranges and backlog. */
export const pulsarKind = defineSourceKind<PulsarClusterEntry, PulsarClusterConfig>({
  ...identityOf(pulsarDescription),
  configSchema: pulsarClusterSchema,
  resolveConfig: resolvePulsarCluster,
  describe: (config) => ({
    endpoint: config.adminUrl,
    scope: describeScope(config.scope),
    budget: `${config.requestsPerSecond} requests/s`,
    auth: `${config.token ? "bearer token" : "none"}${config.adminUrl.startsWith("https:") ? ", TLS" : ""}`,
  }),
  scopeOf: (config) => config.scope,
  openCycles: async (config, saved, log) => openPulsarCycles(config, saved.shape === "subscription-partition" ? saved.states : [], log),
  // The cluster list: the cheapest call that proves the admin API answers and the token is accepted.
  async checkReachable(config, timeoutMs) {
    try {
      await requestAdmin(config, "admin/v2/clusters", clusterListSchema, { timeoutMs });
      return { status: "ok", reason: null };
    } catch (error) {
      if (!(error instanceof PulsarAdminError)) throw error;
      if (error.isOutage) return { status: "down", reason: error.message };
      const reason = error.status === 401 || error.status === 403 ? `the admin API refused Baton's token (${error.message})` : error.message;
      return { status: "degraded", reason };
    }
  },
});
