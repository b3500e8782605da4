import type { Redis } from "ioredis";

import type { HoldHint } from "@/lib/poller/contract/hold-observation";

import type { RedisLockPattern } from "./redis-config";
import { createRedisConnection, databaseOf, describeEndpoint, type RedisEndpoint } from "./redis-connection";
import { toRedisSourceError } from "./redis-error";
import { kindOfKeyspaceEvent } from "./keyspace-hint";
import { globToRegExp, literalPrefix } from "./redis-glob";

// Change hints between polls, from one master. Two mechanisms, both fire-and-forget:
// - client tracking in broadcast mode (`CLIENT TRACKING on REDIRECT <id> BCAST PREFIX p`): no
//   server configuration needed; Redis names every key under the prefixes that is written or
//   expires, without saying how. Works for patterns with a literal prefix.
// - keyspace notifications, when the operators enabled them (`notify-keyspace-events` with K
//   and g/$/x, h for Redisson): the event name (`del`, `expired`, `set`, `hset`...). Baton only
//   reads that setting (CONFIG GET); it never changes a user's Redis.
// Both are lost while a connection is down: every reconnect calls onResync, and the poller
// then reads everything. Polls stay the truth; hints only make them come sooner.

/**
 * A key that changed, as a hold hint (keyspace-hint.ts). `pattern` is the first configured
 * pattern it matches, so a lock created between two discoveries can be observed at once; `event`
 * is null for client tracking, which does not say what happened.
 */
export type KeyHint = HoldHint & { pattern: string };
export type WatchMode = "tracking" | "notifications" | "both" | "none";

export type WatchLockKeysOptions = {
  endpoint: RedisEndpoint;
  /** Prefix of the connections' CLIENT SETNAME, so operators can tell them apart. */
  name?: string;
  patterns: RedisLockPattern[];
  onKeys(keys: KeyHint[]): void;
  onResync(reason: string): void;
  /** Called when setting up after a reconnect fails (the next reconnect tries again). */
  onError?(error: Error): void;
};

export type LockKeyWatcher = {
  stop(): Promise<void>;
  /** What delivers hints now (it can change after a reconnect). */
  readonly mode: WatchMode;
  /** Patterns no mechanism covers (no literal prefix for tracking, notifications off): polled only. */
  readonly pollOnlyPatterns: string[];
  /** Whether the server's keyspace notifications are on, and why not. */
  readonly notifications: NotificationState;
};

export type NotificationState = { state: "on" | "off" | "unknown"; reason: string | null };

const INVALIDATE_CHANNEL = "__redis__:invalidate";

/** Prefixes for BCAST tracking, without overlaps (Redis refuses a prefix inside another). */
export function trackingPrefixes(patterns: RedisLockPattern[]): string[] {
  const prefixes = [...new Set(patterns.map((pattern) => literalPrefix(pattern.match)).filter((prefix) => prefix.length > 0))].sort();
  return prefixes.filter((prefix, index) => !prefixes.slice(0, index).some((shorter) => prefix.startsWith(shorter)));
}

/**
 * Reads `notify-keyspace-events`: true when keyspace events (K) for the lock's commands are on,
 * false when off, null when the server refuses CONFIG (managed Redis) and we cannot know.
 */
export function hasKeyspaceNotifications(flags: string | null, patterns: RedisLockPattern[]): boolean | null {
  if (flags === null) return null;
  if (!flags.includes("K")) return false;
  const all = flags.includes("A");
  const covers = (layout: RedisLockPattern["layout"]) =>
    all || (flags.includes("g") && (flags.includes("x") || flags.includes("$") || (layout === "redisson" && flags.includes("h"))));
  return patterns.every((pattern) => covers(pattern.layout));
}

/** The server's notify-keyspace-events, or why it cannot be read. */
async function readNotifyFlags(client: Redis): Promise<{ flags: string | null; reason: string | null }> {
  try {
    const reply = (await client.call("CONFIG", "GET", "notify-keyspace-events")) as string[];
    return { flags: reply[1] ?? "", reason: null };
  } catch (error) {
    // Managed Redis (ElastiCache, Memorystore) renames or forbids CONFIG: unknown, not off.
    return { flags: null, reason: `CONFIG GET notify-keyspace-events was refused (${(error as Error).message})` };
  }
}

export async function watchLockKeys(options: WatchLockKeysOptions): Promise<LockKeyWatcher> {
  const { endpoint, patterns } = options;
  const master = describeEndpoint(endpoint.url);
  const name = options.name ?? "baton-locks";
  const prefixes = trackingPrefixes(patterns);
  const matchers = patterns.map((pattern) => ({ pattern: pattern.match, regex: globToRegExp(pattern.match) }));
  const keyspacePrefix = `__keyspace@${databaseOf(endpoint.url)}__:`;
  const patternOf = (key: string) => matchers.find((matcher) => matcher.regex.test(key))?.pattern;

  // The subscriber receives; the tracker asks Redis to track (in RESP2 a tracking client cannot
  // receive its own invalidations, so they are redirected to the subscriber).
  const subscriber = createRedisConnection(endpoint, `${name}-hints`);
  const tracker = createRedisConnection(endpoint, `${name}-tracking`);
  // ioredis would resubscribe on its own, but the subscriber's client id changes on every
  // reconnect and tracking must be redirected to the new one: we set everything up ourselves.
  subscriber.options.autoResubscribe = false;

  let isTracking = false;
  let isNotifying = false;
  let isStopped = false;
  let subscriberId: number | null = null;
  let notifications: NotificationState = { state: "unknown", reason: "not connected yet" };

  subscriber.on("messageBuffer", (channel: Buffer, payload: Buffer | Buffer[] | null) => {
    if (channel.toString() !== INVALIDATE_CHANNEL) return;
    const at = new Date().toISOString();
    // A null payload is FLUSHALL/FLUSHDB: every key may have gone.
    if (payload === null || !Array.isArray(payload)) {
      options.onResync("the database was flushed");
      return;
    }
    const hints = payload.flatMap((raw): KeyHint[] => {
      const key = raw.toString();
      const pattern = patternOf(key);
      return pattern === undefined ? [] : [{ key, pattern, kind: kindOfKeyspaceEvent(null), event: null, at }];
    });
    if (hints.length > 0) options.onKeys(hints);
  });
  subscriber.on("pmessage", (_pattern: string, channel: string, event: string) => {
    const key = channel.slice(keyspacePrefix.length);
    const pattern = patternOf(key);
    if (pattern !== undefined) options.onKeys([{ key, pattern, kind: kindOfKeyspaceEvent(event), event, at: new Date().toISOString() }]);
  });

  async function enableTracking(): Promise<void> {
    if (prefixes.length === 0 || subscriberId === null) return;
    // Switching the redirect of a BCAST client needs tracking off first.
    await tracker.call("CLIENT", "TRACKING", "off");
    await tracker.call("CLIENT", "TRACKING", "on", "REDIRECT", subscriberId, "BCAST", ...prefixes.flatMap((prefix) => ["PREFIX", prefix]));
    isTracking = true;
  }

  async function setUpSubscriber(): Promise<void> {
    subscriberId = Number(await subscriber.call("CLIENT", "ID"));
    if (prefixes.length > 0) await subscriber.subscribe(INVALIDATE_CHANNEL);
    const { flags, reason } = await readNotifyFlags(tracker);
    const enabled = hasKeyspaceNotifications(flags, patterns);
    notifications =
      enabled === null ? { state: "unknown", reason } : { state: enabled ? "on" : "off", reason: enabled ? null : `notify-keyspace-events is "${flags}"` };
    isNotifying = enabled === true;
    if (isNotifying) await subscriber.psubscribe(...patterns.map((pattern) => `${keyspacePrefix}${pattern.match}`));
  }

  async function setUp(step: "all" | "tracking"): Promise<void> {
    try {
      if (step === "all") await setUpSubscriber();
      await enableTracking();
    } catch (error) {
      isTracking = false;
      // Redis before 6 has no CLIENT TRACKING: notifications (if on) and polls remain.
      if (/unknown subcommand|unknown command/i.test((error as Error).message)) return;
      throw toRedisSourceError(error, master, endpoint.requestTimeoutMs);
    }
  }

  // The first `ready` of each connection is the start-up below; every later one is a reconnect.
  let isStarted = false;
  const onReconnect = (step: "all" | "tracking") => () => {
    if (!isStarted || isStopped) return;
    isTracking = false;
    if (step === "all") isNotifying = false;
    setUp(step)
      .catch((error: unknown) => options.onError?.(error as Error))
      .finally(() => {
        if (!isStopped) options.onResync(`reconnected to ${master}: hints sent while disconnected were lost`);
      });
  };
  subscriber.on("ready", onReconnect("all"));
  tracker.on("ready", onReconnect("tracking"));
  // While a connection is down nothing arrives (and Redis forgets the tracking of a closed
  // tracker): the mode says so until onReconnect has set everything up again.
  subscriber.on("close", () => {
    isTracking = false;
    isNotifying = false;
  });
  tracker.on("close", () => {
    isTracking = false;
  });

  try {
    await Promise.all([subscriber.connect(), tracker.connect()]);
    await setUp("all");
  } catch (error) {
    // Redis is down at start: the watcher still runs and sets up on the first reconnect.
    options.onError?.(toRedisSourceError(error, master, endpoint.requestTimeoutMs));
  } finally {
    isStarted = true;
  }

  return {
    get mode(): WatchMode {
      if (isTracking && isNotifying) return "both";
      if (isTracking) return "tracking";
      return isNotifying ? "notifications" : "none";
    },
    get pollOnlyPatterns(): string[] {
      if (isNotifying) return [];
      return patterns.filter((pattern) => literalPrefix(pattern.match).length === 0 || !isTracking).map((pattern) => pattern.match);
    },
    get notifications(): NotificationState {
      return notifications;
    },
    async stop() {
      isStopped = true;
      await Promise.all([subscriber, tracker].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
