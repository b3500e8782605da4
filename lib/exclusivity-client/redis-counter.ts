import type { CounterBackend } from "./counter-backend";

/** What the counter needs from a Redis client; an ioredis `Redis` instance fits. */
export type RedisLike = {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
};

export type RedisCounterOptions = {
  /**
   * How long a key may stay non-zero before Redis drops it (default 60 s). Set when the key is
   * created (its count goes 0 -> 1) and not extended, so that an increment whose worker crashed
   * before decrementing is forgotten within this time even on a busy key. The trade-off: a key
   * that stays non-zero for longer (a critical section longer than this, or back-to-back
   * overlaps) is reset, and overlaps at that moment are missed. Make it longer than your
   * longest critical section.
   */
  ttlMs?: number;
};

export const DEFAULT_COUNTER_TTL_MS = 60_000;

// INCR and setting the expiry run as one script, so a crash between them cannot leave a key
// without expiry. PTTL < 0 also covers keys another client created without one.
const INCREMENT_SCRIPT = `
local value = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value`;

// At zero the key is deleted. Below zero means the key expired (or was lost) while workers
// were inside; deleting it then keeps later counts right instead of one too low forever.
const DECREMENT_SCRIPT = `
local value = redis.call('DECR', KEYS[1])
if value <= 0 then redis.call('DEL', KEYS[1]) end
return value`;

function toCount(reply: unknown): number {
  if (typeof reply !== "number") throw new Error(`Redis answered ${JSON.stringify(reply)} to a counter script, expected an integer`);
  return reply;
}

/** Counters in Redis, shared by every worker that uses the same Redis and key prefix. */
export function createRedisCounter(redis: RedisLike, options: RedisCounterOptions = {}): CounterBackend {
  const ttlMs = options.ttlMs ?? DEFAULT_COUNTER_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new Error(`ttlMs must be a positive integer (got ${ttlMs})`);
  return {
    increment: async (key) => toCount(await redis.eval(INCREMENT_SCRIPT, 1, key, ttlMs)),
    decrement: async (key) => toCount(await redis.eval(DECREMENT_SCRIPT, 1, key)),
  };
}
