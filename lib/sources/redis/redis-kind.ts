import "server-only";

import { listMasterUrls, type RedisClusterConfig, redisClusterSchema, type RedisSourceConfig } from "@/lib/sources/redis/redis-config";
import { findRedlockOverlaps } from "@/lib/sources/redis/redlock-overlaps";
import { defineSourceKind } from "@/lib/poller/contract/source-kind";
import { identityOf } from "@/lib/sources/kind-identity";
import { redisDescription } from "@/lib/sources/redis/redis-description";

/** A Redis URL as the pages show it: the password never leaves the configuration. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString().replace(/\/$/, "");
}

/** Redis locks: SET NX PX tokens, Redlock groups of 3 or 5 masters, Redisson's RLock hashes. */
export const redisKind = defineSourceKind<RedisClusterConfig, RedisSourceConfig>({
  ...identityOf(redisDescription),
  configSchema: redisClusterSchema,
  resolveConfig: (config, _setting, defaultPollIntervalMs) => ({ ...config, pollIntervalMs: config.pollIntervalMs ?? defaultPollIntervalMs }),
  describe: (config) => ({
    endpoint: listMasterUrls(config).map(redactUrl).join(", "),
    scope: config.patterns.map((p) => `${p.match} (${p.layout}${p.mustBeHeld ? ", must be held" : ""})`).join(", "),
    budget: `${config.commandsPerSecond} commands/s`,
    auth: `${config.password || config.passwordFile ? "password" : "none"}${config.tls || listMasterUrls(config).some((u) => u.startsWith("rediss:")) ? ", TLS" : ""}${config.urls ? `, Redlock over ${config.urls.length} masters` : ""}`,
  }),
  scopeOf: (config) => ({
    patterns: config.patterns.map(({ match, layout, mustBeHeld, holderPattern }) => ({ match, layout, mustBeHeld, holderPattern: holderPattern ?? null })),
    masters: listMasterUrls(config).length,
    isRedlock: config.urls !== undefined,
    isCluster: config.cluster,
  }),
  findConflicts: findRedlockOverlaps,
  // ioredis loads when a Redis cluster is polled or checked, not in every process.
  openCycles: async (config, saved, log) => (await import("./redis-runtime")).openRedisCycles(config, saved, log),
  checkReachable: async (config, timeoutMs) => (await import("./redis-runtime")).checkRedisReachable(config, timeoutMs),
});
