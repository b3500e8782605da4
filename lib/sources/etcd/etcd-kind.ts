import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";

import { readStatus } from "./etcd-api";
import { type EtcdClusterConfig, etcdClusterSchema } from "./etcd-config";
import { etcdDescription } from "./etcd-description";
import { ETCD_MOVING_DETAILS } from "./etcd-observation";
import { createEtcdTransport, resolveCredentials } from "./etcd-transport";
import { createEtcdHoldSource } from "./index";

export type EtcdSourceConfig = EtcdClusterConfig & { pollIntervalMs: number };

/** etcd elections and locks: Go's concurrency Election and Mutex (etcdctl elect/lock), the Node etcd3 client's Election and Lock, Patroni's clusters. */
export const etcdKind = defineSourceKind<EtcdClusterConfig, EtcdSourceConfig>({
  ...identityOf(etcdDescription, { movingDetails: ETCD_MOVING_DETAILS }),
  configSchema: etcdClusterSchema,
  // The password file is read where etcd is talked to (the worker's source, the health check),
  // not here: the web app parses the same configuration and may not have the secret mounted.
  resolveConfig: (config, _setting, defaultPollIntervalMs) => ({ ...config, pollIntervalMs: config.pollIntervalMs ?? defaultPollIntervalMs }),
  describe: (config) => ({
    endpoint: config.endpoints.join(", "),
    scope: config.prefixes.map((p) => `${p.prefix} (${p.layout}${p.mustBeHeld ? ", must be held" : ""})`).join(", "),
    budget: `${config.requestsPerSecond} requests/s`,
    auth: `${config.user ? `user ${config.user}` : "none"}${config.tls || config.endpoints.some((url) => url.startsWith("https:")) ? ", TLS" : ""}`,
  }),
  scopeOf: (config) => ({
    // What the lock pages and health rules read of every lock kind: each pattern its
    // observations carry (here the watched prefix), its layout, and whether it must be held.
    patterns: config.prefixes.map(({ prefix, layout, mustBeHeld }) => ({ match: prefix, layout, mustBeHeld })),
    prefixes: config.prefixes.map(({ prefix, layout, mustBeHeld }) => ({ prefix, layout, mustBeHeld })),
    members: config.endpoints.length,
  }),
  openCycles: (config, saved, log) =>
    openHoldCycles(createEtcdHoldSource(config, log), saved.shape === "hold" ? saved.states : [], {
      resourceKind: etcdDescription.resourceKind,
      predictNextHolder: etcdDescription.predictNextHolder,
      discoveryIntervalMs: config.discoveryIntervalMs,
      pollIntervalMs: config.pollIntervalMs,
      log,
    }),
  // Status of every member: all answer (ok), some do (degraded: a quorum may still serve), none (down).
  async checkReachable(config, timeoutMs) {
    const credentials = resolveCredentials(config);
    const failures: string[] = [];
    await Promise.all(
      config.endpoints.map(async (endpoint) => {
        const transport = createEtcdTransport({ ...config, endpoints: [endpoint], requestTimeoutMs: timeoutMs }, credentials);
        try {
          await readStatus(transport, { timeoutMs });
        } catch (error) {
          failures.push((error as Error).message);
        } finally {
          await transport.close();
        }
      }),
    );
    if (failures.length === 0) return { status: "ok", reason: null };
    return { status: failures.length === config.endpoints.length ? "down" : "degraded", reason: failures.join("; ") };
  },
});
