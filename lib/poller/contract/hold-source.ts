// What a lock-like source kind (Redis, ZooKeeper, etcd, DynamoDB lock tables) gives
// the shared hold cycles (lib/poller/hold-cycles.ts): find its locks, read them, and signal
// changes between reads. Reads never answer "free" for a lock they could not read: that is an
// error, and the lock goes stale.

import type { HoldHint, HoldObservation, HolderLiveness } from "@/lib/poller/contract/hold-observation";

/** A lock the source knows of, with the pattern (or path) that found it. */
export type LockRef = { key: string; pattern: string };

/** A read that failed: one lock (key), one server of several (master), or the whole source. */
export type HoldReadError = { key?: string; master?: string; message: string };

export type HoldWatch = {
  /** How changes are signalled: "tracking", "notifications", "both", or "none" (polls only). */
  mode: string;
  stop(): Promise<void>;
};

export type HoldSource = {
  /** Every lock in scope. May walk a large keyspace: called every discoveryIntervalMs, not every poll. */
  discover(): Promise<{ keys: LockRef[]; errors: HoldReadError[]; isComplete: boolean }>;
  /** One read of the given locks; a lock it could not read is absent from `observations`. */
  observe(keys: LockRef[]): Promise<{ observations: HoldObservation[]; errors: HoldReadError[] }>;
  /** The pattern a key belongs to, for a key first heard of through a change signal; null if none. */
  patternOf(key: string): string | null;
  /**
   * Change signals between reads. `onResync`: signals may have been lost (a reconnect), so a full
   * read is due.
   */
  watch(onHints: (hints: HoldHint[]) => void, onResync: (reason: string) => void): Promise<HoldWatch>;
  /**
   * Whether the holders of holds that just ended still live (their session, their lease), asked
   * after the read that saw the change, so that "alive" holds at that read too. A token the
   * source cannot tell about is absent. Optional: a kind without it leaves the ending to its
   * hints and its expiry.
   */
  checkHolders?(tokens: string[]): Promise<Map<string, HolderLiveness>>;
  /** Commands sent since the last call (for the poll-run record). */
  takeRequestCount(): number;
  close(): Promise<void>;
};
