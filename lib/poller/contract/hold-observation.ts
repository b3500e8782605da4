// What one read of one lock saw: the shape every lock-like source kind (Redis, ZooKeeper, etcd,
// DynamoDB lock tables) hands the shared poller. Part of the seam below the kinds. Client-safe types only.

export type HoldObservation = {
  /** Stable identity within the cluster: the lock's key or path, e.g. "lock:daily-job". */
  resourceKey: string;
  /** The configured pattern (or path) that found it: locks are grouped by it on the pages. */
  pattern: string;
  /**
   * A readable holder, or null when the lock is free. Redis: the holderPattern's `holder` group,
   * else the token shortened, else for Redisson the client uuid's first 8 characters + ":" +
   * the thread id.
   */
  holder: string | null;
  /**
   * The holder's exact token or session (Redis: the token, or Redisson's "<uuid>:<threadId>"):
   * a new one under the same readable holder is a re-acquire.
   */
  holderToken: string | null;
  /** When the hold ends unless renewed (observedAt + TTL); null when free or without a TTL. */
  expiresAt: string | null;
  ttlMs: number | null;
  /** Queued contenders in order (fair locks, lock-service queues). */
  waiters: string[];
  /** When this answer arrived (a Redlock group: the latest of its masters' answers): the bound of the changes it shows. */
  observedAt: string;
  /** No majority of a Redlock group agrees on a token while some master holds one. */
  isSplit: boolean;
  /** The kind's own details (layout, reentrancy count, per-master tokens...). */
  details: Record<string, unknown>;
  /**
   * How the previous hold ended, when the source itself knows (a lock table's `isReleased`, a
   * lease it saw run out): it wins over Baton's reading of the TTL. Absent when it does not know.
   */
  previousEnding?: "RELEASED" | "EXPIRED";
};

/** A change signal between polls: the key was written, deleted or expired (when the source says which). */
export type HoldHint = { key: string; event: string | null; at: string };

/** The hint events that tell how a hold ended. */
export const RELEASE_EVENTS: ReadonlySet<string> = new Set(["del", "unlink", "hdel"]);
export const EXPIRY_EVENTS: ReadonlySet<string> = new Set(["expired", "evicted"]);
