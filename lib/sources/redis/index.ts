// Baton's Redis lock source: who holds each Redis lock. The files, in the order a poll uses them:
//   redis-config.ts      the `kind: "redis"` settings (zod) and their one-line errors
//   redis-connection.ts  one ioredis transport per master; pipelines spend the command budget
//   command-limiter.ts   commands per second, a pipeline of N costing N
//   discover-locks.ts    SCAN ... MATCH ... TYPE, resumable, per pattern per master
//   read-locks.ts        one pipeline per master: GET/HGETALL + PTTL (+ a fair lock's queue)
//   lock-observation.ts  readings -> LockObservation (token, Redisson hash, Redlock majority)
//   watch-lock-keys.ts   change hints between polls: client tracking, keyspace notifications
//   keyspace-hint.ts     keyspace events in the hold hints' vocabulary (release, expiry, change)
// Layouts: `token` is `SET key token NX PX ttl` (node-redlock, go-redsync, redis-py, ShedLock);
// `redisson` is Redisson's RLock hash `{ "<client uuid>:<thread id>": holdCount }` with a PTTL
// its watchdog renews, and for fair locks `redisson_lock_queue:{name}` (waiters in order) and
// `redisson_lock_timeout:{name}`. No Next and no Prisma here: the poller owns storage.

import { type CommandLimiter, createCommandLimiter, type RequestLimiter, toCommandLimiter } from "./command-limiter";
import { createLockDiscovery, type DiscoveredKey } from "./discover-locks";
import { type LockObservation, type ObservationError, toLockObservations } from "./lock-observation";
import { keySlot } from "./key-slot";
import { type KeyToRead, type ReadBatch, readLocks } from "./read-locks";
import type { RedisClusterConfig } from "./redis-config";
import { connectClusterMasters, createMaster, type RedisMaster, resolveEndpoints } from "./redis-connection";
import { toRedisSourceError } from "./redis-error";
import { type KeyHint, watchLockKeys, type WatchMode } from "./watch-lock-keys";

export type { LockObservation, ObservationError } from "./lock-observation";
export type { DiscoveredKey } from "./discover-locks";
export type { KeyHint, WatchMode } from "./watch-lock-keys";
export type { RedisClusterConfig, RedisClusterInput, RedisLockPattern } from "./redis-config";
export { parseRedisClusterConfig, redisClusterSchema, RedisConfigError } from "./redis-config";
export { createCommandLimiter, toCommandLimiter } from "./command-limiter";
export type { CommandLimiter, RequestLimiter } from "./command-limiter";
export { RedisSourceError } from "./redis-error";
export { watchLockKeys } from "./watch-lock-keys";
export type { LockKeyWatcher, WatchLockKeysOptions } from "./watch-lock-keys";

export type RedisLockSource = {
  /** Continues the SCAN discovery (a full pass by default; `maxScanCalls` per pattern per master to spread it). */
  discover(options?: { maxScanCalls?: number }): Promise<{ keys: DiscoveredKey[]; errors: ObservationError[]; isPassComplete: boolean; scanCalls: number }>;
  /** Reads the keys: one pipeline per master. Keys whose state is unknown come back as errors, never as free. */
  observe(keys: DiscoveredKey[]): Promise<{ observations: LockObservation[]; errors: ObservationError[] }>;
  /**
   * Change hints between polls (client tracking and/or keyspace notifications) on every master.
   * onResync: hints were lost (reconnect, flush): read everything. onError: setting hints up
   * again after a reconnect failed (the next reconnect retries; polls go on).
   */
  watch(
    onKeys: (keys: KeyHint[]) => void,
    onResync: (reason: string) => void,
    onError?: (error: Error) => void,
  ): Promise<{ stop(): Promise<void>; readonly mode: WatchMode; readonly pollOnlyPatterns: string[] }>;
  close(): Promise<void>;
};

type MasterSet = {
  list(): Promise<RedisMaster[]>;
  /** The batches of one read: which master reads which keys. */
  route(masters: RedisMaster[], keys: KeyToRead[]): ReadBatch[];
  close(): Promise<void>;
};

function createStandaloneMasters(config: RedisClusterConfig): MasterSet {
  const masters = resolveEndpoints(config).map((endpoint) => createMaster(endpoint, `baton-${config.name}`));
  return {
    list: async () => masters,
    // One master reads everything; a Redlock group reads every key on every master.
    route: (list, keys) => list.map((master) => ({ master, keys })),
    close: async () => {
      await Promise.all(masters.map((master) => master.client.quit().catch(() => master.client.disconnect())));
    },
  };
}

function createClusterMasters(config: RedisClusterConfig): MasterSet {
  const [seed] = resolveEndpoints(config);
  let connecting: ReturnType<typeof connectClusterMasters> | null = null;
  const connect = () => {
    connecting ??= connectClusterMasters(seed!).catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  };
  let ownerOfSlot: (slot: number) => string | undefined = () => undefined;
  return {
    list: async () => {
      const connected = await connect();
      ownerOfSlot = connected.ownerOfSlot;
      return connected.masters();
    },
    // Each key is read on the master that owns its slot, so each master gets one pipeline.
    route: (list, keys) => {
      const byId = new Map(list.map((master) => [master.id, { master, keys: [] as KeyToRead[] }]));
      const unrouted: KeyToRead[] = [];
      for (const key of keys) {
        const batch = byId.get(ownerOfSlot(keySlot(key.key)) ?? "");
        if (batch) batch.keys.push(key);
        else unrouted.push(key);
      }
      // A slot without a known master (the table is refreshing): any master answers MOVED for
      // it, which comes back as that key's error rather than as a free lock.
      if (unrouted.length > 0 && list[0]) byId.get(list[0].id)!.keys.push(...unrouted);
      return [...byId.values()];
    },
    close: async () => {
      if (!connecting) return;
      const connected = await connecting.catch(() => null);
      await connected?.cluster.quit().catch(() => connected.cluster.disconnect());
    },
  };
}

export function createRedisLockSource(config: RedisClusterConfig, limiter?: RequestLimiter | CommandLimiter): RedisLockSource {
  const budget = limiter ? toCommandLimiter(limiter) : createCommandLimiter({ commandsPerSecond: config.commandsPerSecond });
  const masterSet = config.cluster ? createClusterMasters(config) : createStandaloneMasters(config);
  const discovery = createLockDiscovery({ patterns: config.patterns, scanCount: config.scanCount, limiter: budget });
  const layoutOf = new Map(config.patterns.map((pattern) => [pattern.match, pattern.layout]));
  const isRedlock = config.urls !== undefined;
  const stops: (() => Promise<void>)[] = [];

  async function listMasters(): Promise<{ masters: RedisMaster[]; errors: ObservationError[] }> {
    try {
      return { masters: await masterSet.list(), errors: [] };
    } catch (error) {
      const failure = toRedisSourceError(error, config.name, config.requestTimeoutMs);
      return { masters: [], errors: [{ master: failure.master, message: failure.message }] };
    }
  }

  return {
    async discover(options) {
      const { masters, errors } = await listMasters();
      const result = await discovery.discover(masters, options);
      // A key that two patterns match is the first pattern's.
      const seen = new Set<string>();
      const keys = result.keys.filter(({ key }) => !seen.has(key) && Boolean(seen.add(key)));
      return { keys, errors: [...errors, ...result.errors], isPassComplete: result.isPassComplete && errors.length === 0, scanCalls: result.scanCalls };
    },

    async observe(keys) {
      const errors: ObservationError[] = [];
      const toRead: KeyToRead[] = [];
      for (const { key, pattern } of keys) {
        const layout = layoutOf.get(pattern);
        if (layout) toRead.push({ key, pattern, layout });
        else errors.push({ key, message: `pattern "${pattern}" is not configured for ${config.name}` });
      }
      const listed = await listMasters();
      if (listed.masters.length === 0) {
        return {
          observations: [],
          errors: [...errors, ...listed.errors, ...toRead.map(({ key }) => ({ key, message: listed.errors[0]?.message ?? "no master" }))],
        };
      }
      const { readings, failures } = await readLocks(masterSet.route(listed.masters, toRead), budget);
      const result = toLockObservations({
        keys: toRead,
        readings,
        failures,
        patterns: config.patterns,
        redlockMasters: isRedlock ? listed.masters.map((master) => master.id) : null,
      });
      return { observations: result.observations, errors: [...errors, ...result.errors] };
    },

    async watch(onKeys, onResync, onError) {
      const { masters } = await listMasters();
      const watchers = await Promise.all(
        masters.map((master) =>
          watchLockKeys({ endpoint: master.endpoint, name: `baton-${config.name}`, patterns: config.patterns, onKeys, onResync, onError }),
        ),
      );
      const stop = async () => {
        await Promise.all(watchers.map((watcher) => watcher.stop()));
      };
      stops.push(stop);
      return {
        stop,
        // Live: a reconnect can lose or regain tracking and notifications on any master.
        get mode(): WatchMode {
          const modes = new Set(watchers.map((watcher) => watcher.mode));
          const hasTracking = modes.has("tracking") || modes.has("both");
          const hasNotifications = modes.has("notifications") || modes.has("both");
          return hasTracking && hasNotifications ? "both" : hasTracking ? "tracking" : hasNotifications ? "notifications" : "none";
        },
        get pollOnlyPatterns(): string[] {
          const uncovered = new Set(watchers.flatMap((watcher) => watcher.pollOnlyPatterns));
          return watchers.length === 0 ? config.patterns.map((pattern) => pattern.match) : [...uncovered];
        },
      };
    },

    async close() {
      await Promise.all(stops.map((stop) => stop()));
      await masterSet.close();
    },
  };
}
