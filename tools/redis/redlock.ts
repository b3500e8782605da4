// A Redlock client (redis.io/docs/manual/patterns/distributed-locks) over independent masters:
// SET key value NX PX ttl on every master, held when a majority accepted within the validity
// time, else what was taken is released; extended and released only where the value is still
// ours. node-redlock (v5) runs the same algorithm but always writes a random value
// (randomBytes(16), from a private method, with no option to choose it); here the caller
// chooses it, e.g. "<worker>:<uuid>", so that Baton's holderPattern can name the holder.
import { Redis } from "ioredis";

import { DEFAULT_DRIFT_FACTOR, driftOf, isQuorumHeld } from "@/tools/redis/redlock-quorum";

/** A lock held on a majority of the masters, valid until `validUntilMs` (this process's clock). */
export type RedlockLease = { key: string; value: string; ttlMs: number; validUntilMs: number };

/** The outcome of an acquisition or an extension: the lease when it holds, and how many masters accepted. */
export type RedlockAttempt = { lease: RedlockLease | null; accepted: number; masters: number };

export type Redlock = {
  acquire(key: string, value: string, ttlMs: number): Promise<RedlockAttempt>;
  /** Sets the lease's TTL again where the value is still ours; a lease past its validity is not extended. */
  extend(lease: RedlockLease): Promise<RedlockAttempt>;
  /** Deletes the key where the value is still ours; returns on how many masters. */
  release(lease: RedlockLease): Promise<number>;
  close(): Promise<void>;
};

export type RedlockOptions = {
  /** A master that does not answer within this is a vote against (default 1,000 ms; the validity check counts the wait). */
  commandTimeoutMs?: number;
  driftFactor?: number;
  /** Connection problems of one master (its commands then count as votes against). */
  onError?: (error: Error) => void;
};

// Compare-and-act scripts: only the holder of the value may extend or delete the key.
const EXTEND_IF_OURS = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const DELETE_IF_OURS = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/** How many of the promises resolved to a value `isAccepted` takes; a failed master counts as no. */
async function countAccepted<T>(answers: Promise<T>[], isAccepted: (answer: T) => boolean): Promise<number> {
  const settled = await Promise.allSettled(answers);
  return settled.filter((result) => result.status === "fulfilled" && isAccepted(result.value)).length;
}

/** Connects to every master; throws when one cannot be reached at all. */
export async function connectRedlock(urls: string[], options: RedlockOptions = {}): Promise<Redlock> {
  const driftFactor = options.driftFactor ?? DEFAULT_DRIFT_FACTOR;
  const clients = urls.map(
    (url) =>
      // No offline queue and no retries: a master that is away must vote against at once, not
      // answer late with a value whose TTL was counted from the request.
      new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: options.commandTimeoutMs ?? 1_000 }),
  );
  for (const client of clients) client.on("error", (error: Error) => options.onError?.(error));
  await Promise.all(clients.map((client) => client.connect()));

  const toLease = (key: string, value: string, ttlMs: number, startedAtMs: number, accepted: number): RedlockAttempt => {
    const elapsedMs = Date.now() - startedAtMs;
    const isHeld = isQuorumHeld({ masters: clients.length, accepted, ttlMs, elapsedMs, driftFactor });
    const lease = isHeld ? { key, value, ttlMs, validUntilMs: startedAtMs + ttlMs - driftOf(ttlMs, driftFactor) } : null;
    return { lease, accepted, masters: clients.length };
  };

  const releaseEverywhere = (key: string, value: string) =>
    countAccepted(
      clients.map((client) => client.eval(DELETE_IF_OURS, 1, key, value)),
      (deleted) => deleted === 1,
    );

  return {
    async acquire(key, value, ttlMs) {
      const startedAtMs = Date.now();
      const accepted = await countAccepted(
        clients.map((client) => client.set(key, value, "PX", ttlMs, "NX")),
        (answer) => answer === "OK",
      );
      const attempt = toLease(key, value, ttlMs, startedAtMs, accepted);
      // A minority (or a majority that took too long) is no lock: give back what was taken, so
      // the next contender does not wait for its TTL.
      if (attempt.lease === null && accepted > 0) await releaseEverywhere(key, value);
      return attempt;
    },
    async extend(lease) {
      const startedAtMs = Date.now();
      if (lease.validUntilMs <= startedAtMs) return { lease: null, accepted: 0, masters: clients.length };
      const accepted = await countAccepted(
        clients.map((client) => client.eval(EXTEND_IF_OURS, 1, lease.key, lease.value, lease.ttlMs)),
        (extended) => extended === 1,
      );
      return toLease(lease.key, lease.value, lease.ttlMs, startedAtMs, accepted);
    },
    release: (lease) => releaseEverywhere(lease.key, lease.value),
    async close() {
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
