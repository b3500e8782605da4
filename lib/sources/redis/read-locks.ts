import type { CommandLimiter } from "./command-limiter";
import type { RedisLayout } from "./redis-config";
import { type Command, type RedisMaster, sendPipeline } from "./redis-connection";

// Reads the known lock keys: one pipeline per master per poll. token: GET + PTTL; redisson:
// HGETALL + PTTL + the fair lock's queue (LRANGE) and timeouts (ZRANGE WITHSCORES), which are
// empty lists for a plain RLock. Each reading carries the time its own pipeline answered.

export type KeyToRead = { key: string; pattern: string; layout: RedisLayout };

export type LockReading = {
  key: string;
  pattern: string;
  layout: RedisLayout;
  /** host:port of the master that answered. */
  master: string;
  /** ISO time this master's pipeline answered. */
  observedAt: string;
  /** token layout: the value; null when the key is absent. */
  value: string | null;
  /** redisson layout: the hash's fields; null when the key is absent. */
  fields: Record<string, string> | null;
  /** PTTL: milliseconds left, -1 for a key without expiry, null when the key is absent. */
  pttlMs: number | null;
  /** redisson fair lock: waiting `<uuid>:<threadId>` in queue order. */
  queue: string[];
  /** redisson fair lock: each waiter's give-up time (epoch ms), from redisson_lock_timeout. */
  queueTimeouts: { waiter: string; timeoutAt: number }[];
  /** A per-key error (WRONGTYPE: the key is not the configured layout). */
  error: string | null;
};

export type MasterReadFailure = { master: string; keys: string[]; message: string };

export type ReadBatch = { master: RedisMaster; keys: KeyToRead[] };

/** Redisson's name for a fair lock's companion keys (RedissonObject.prefixName). */
export function redissonCompanionKey(prefix: "redisson_lock_queue" | "redisson_lock_timeout", lockName: string): string {
  return lockName.includes("{") ? `${prefix}:${lockName}` : `${prefix}:{${lockName}}`;
}

function commandsFor(read: KeyToRead): Command[] {
  if (read.layout === "token")
    return [
      ["GET", read.key],
      ["PTTL", read.key],
    ];
  return [
    ["HGETALL", read.key],
    ["PTTL", read.key],
    ["LRANGE", redissonCompanionKey("redisson_lock_queue", read.key), 0, -1],
    ["ZRANGE", redissonCompanionKey("redisson_lock_timeout", read.key), 0, -1, "WITHSCORES"],
  ];
}

function pairsToRecord(flat: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  if (!Array.isArray(flat)) return record;
  for (let index = 0; index + 1 < flat.length; index += 2) record[String(flat[index])] = String(flat[index + 1]);
  return record;
}

function toReading(read: KeyToRead, master: string, observedAt: string, replies: [Error | null, unknown][]): LockReading {
  const error = replies.find(([replyError]) => replyError !== null)?.[0] ?? null;
  const pttl = Number(replies[1]?.[1] ?? -2);
  const reading: LockReading = {
    ...read,
    master,
    observedAt,
    value: null,
    fields: null,
    pttlMs: pttl === -2 ? null : pttl,
    queue: [],
    queueTimeouts: [],
    error: error ? error.message : null,
  };
  if (error) return reading;
  if (read.layout === "token") {
    const value = replies[0]![1];
    reading.value = value === null || value === undefined ? null : String(value);
    return reading;
  }
  const fields = pairsToRecord(replies[0]![1]);
  reading.fields = Object.keys(fields).length === 0 ? null : fields;
  reading.queue = Array.isArray(replies[2]![1]) ? (replies[2]![1] as unknown[]).map(String) : [];
  reading.queueTimeouts = Object.entries(pairsToRecord(replies[3]![1])).map(([waiter, score]) => ({ waiter, timeoutAt: Number(score) }));
  return reading;
}

/**
 * Reads every batch (one pipeline per master, in parallel). A master that does not answer
 * yields a failure listing its keys, never readings: its locks are unknown, not free.
 */
export async function readLocks(batches: ReadBatch[], limiter: CommandLimiter): Promise<{ readings: LockReading[]; failures: MasterReadFailure[] }> {
  const readings: LockReading[] = [];
  const failures: MasterReadFailure[] = [];
  await Promise.all(
    batches.map(async ({ master, keys }) => {
      if (keys.length === 0) return;
      const perKey = keys.map(commandsFor);
      try {
        const { replies, answeredAt } = await sendPipeline(master, limiter, perKey.flat());
        let offset = 0;
        keys.forEach((read, index) => {
          const count = perKey[index]!.length;
          readings.push(toReading(read, master.id, answeredAt, replies.slice(offset, offset + count)));
          offset += count;
        });
      } catch (error) {
        failures.push({ master: master.id, keys: keys.map((read) => read.key), message: (error as Error).message });
      }
    }),
  );
  return { readings, failures };
}
