import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import { globToRegExp } from "@/lib/sources/redis/redis-glob";
import type { HoldSource } from "@/lib/sources/hold-source";
import { createRedisLockSource } from "@/lib/sources/redis/index";
import { listMasterUrls, type RedisClusterConfig, redisClusterSchema } from "@/lib/sources/redis/redis-config";
import { createMaster, describeEndpoint, resolveEndpoints } from "@/lib/sources/redis/redis-connection";
import { toRedisSourceError } from "@/lib/sources/redis/redis-error";
import { defineSourceKind } from "@/lib/sources/source-kind";

export type RedisSourceConfig = RedisClusterConfig & { pollIntervalMs: number };

/** A Redis URL as the pages show it: the password never leaves the configuration. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString().replace(/\/$/, "");
}

/** The Redis source as the shared hold cycles read it. */
function toHoldSource(config: RedisSourceConfig): HoldSource {
  const redis = createRedisLockSource(config);
  const matchers = config.patterns.map((pattern) => ({ pattern: pattern.match, regex: globToRegExp(pattern.match) }));
  let commands = 0;
  return {
    async discover() {
      const found = await redis.discover();
      commands += found.scanCalls;
      return { keys: found.keys, errors: found.errors, isComplete: found.isPassComplete };
    },
    async observe(keys) {
      // One GET/HGETALL and one PTTL per key and master (fair locks add their queue's reads).
      commands += keys.length * 2 * listMasterUrls(config).length;
      return redis.observe(keys);
    },
    patternOf: (key) => matchers.find((m) => m.regex.test(key))?.pattern ?? null,
    async watch(onHints, onResync) {
      const watch = await redis.watch(onHints, onResync);
      return { mode: watch.mode, stop: watch.stop };
    },
    takeRequestCount() {
      const count = commands;
      commands = 0;
      return count;
    },
    close: () => redis.close(),
  };
}

/** Redis locks: SET NX PX tokens, Redlock groups of 3 or 5 masters, Redisson's RLock hashes. */
export const redisKind = defineSourceKind<RedisSourceConfig>({
  kind: "redis",
  label: "Redis",
  clusterKind: "REDIS",
  configSchema: redisClusterSchema,
  resolveConfig: (entry, _setting, defaultPollIntervalMs) => {
    const config = entry as RedisClusterConfig;
    return { ...config, pollIntervalMs: config.pollIntervalMs ?? defaultPollIntervalMs };
  },
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
  stateShape: "hold",
  openCycles: (config, saved, log) =>
    openHoldCycles(toHoldSource(config), saved.shape === "hold" ? saved.states : [], {
      resourceKind: "REDIS_LOCK",
      discoveryIntervalMs: config.discoveryIntervalMs,
      pollIntervalMs: config.pollIntervalMs,
      log,
    }),
  // PING every master: all answer (ok), some do (degraded: a Redlock majority may still decide), none (down).
  async checkReachable(config, timeoutMs) {
    const endpoints = resolveEndpoints(config);
    const failures: string[] = [];
    await Promise.all(
      endpoints.map(async (endpoint) => {
        const master = createMaster({ ...endpoint, requestTimeoutMs: timeoutMs }, `baton-${config.name}-health`);
        try {
          await master.client.ping();
        } catch (error) {
          failures.push(toRedisSourceError(error, describeEndpoint(endpoint.url), timeoutMs).message);
        } finally {
          master.client.disconnect();
        }
      }),
    );
    if (failures.length === 0) return { status: "ok", reason: null };
    return { status: failures.length === endpoints.length ? "down" : "degraded", reason: failures.join("; ") };
  },
});
