import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";
import type { HoldSource } from "@/lib/poller/contract/hold-source";
import { createRedisLockSource } from "@/lib/sources/redis/index";
import { listMasterUrls } from "@/lib/sources/redis/redis-config";
import { createMaster, describeEndpoint, resolveEndpoints } from "@/lib/sources/redis/redis-connection";
import { toRedisSourceError } from "@/lib/sources/redis/redis-error";
import { globToRegExp } from "@/lib/sources/redis/redis-glob";
import type { RedisSourceConfig } from "@/lib/sources/redis/redis-config";
import { redisDescription } from "@/lib/sources/redis/redis-description";

// What the Redis kind does with connections: redis-kind.ts loads this module (and with it ioredis)
// when a Redis cluster is polled or checked.

/** The Redis source as the shared hold cycles read it. */
export function toHoldSource(config: RedisSourceConfig): HoldSource {
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
      // A getter: the mode changes as connections drop and come back.
      return {
        get mode() {
          return watch.mode;
        },
        stop: () => watch.stop(),
      };
    },
    takeRequestCount() {
      const count = commands;
      commands = 0;
      return count;
    },
    close: () => redis.close(),
  };
}

export function openRedisCycles(config: RedisSourceConfig, saved: CycleStates, log: (line: string) => void): Promise<SourceCycles> {
  return openHoldCycles(toHoldSource(config), saved.shape === "hold" ? saved.states : [], {
    resourceKind: redisDescription.resourceKind,
    predictNextHolder: redisDescription.predictNextHolder,
    discoveryIntervalMs: config.discoveryIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    log,
  });
}

/** PING every master: all answer (ok), some do (degraded: a Redlock majority may still decide), none (down). */
export async function checkRedisReachable(
  config: RedisSourceConfig,
  timeoutMs: number,
): Promise<{ status: "ok" | "degraded" | "down"; reason: string | null }> {
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
}
