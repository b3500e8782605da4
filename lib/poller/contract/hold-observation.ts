// What one read of one lock saw: the shape every lock-like source kind (Redis, ZooKeeper, etcd,
// DynamoDB lock tables) hands the shared poller. Part of the seam below the kinds, with the
// change signals' vocabulary. Client-safe types and a pure helper.

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
  /**
   * The expiry is only as precise as whole seconds (a ZooKeeper `dump`, an etcd lease TTL): a
   * holder replaced before it may still have been gone. Absent: the expiry is exact to the read.
   */
  isExpiryCoarse?: boolean;
  /**
   * What the source knew of the previous holder after this read (its ZooKeeper session, its etcd
   * lease): still "alive", or "gone". Set by the shared cycles from the source's `checkHolders`
   * where a hold changed; absent when the source cannot tell.
   */
  previousHolder?: HolderLiveness;
  /**
   * Holds the source saw running at the same time on a lock meant to be exclusive (a Quartz job's
   * executions on two nodes at once; a ShedLock job whose lockAtMostFor ran out while it still ran,
   * its release landing on the next node's row): each is a double run, which the shared cycles
   * record as an exclusivity violation. Absent where the source saw none, or where sharing is
   * legitimate (shared advisory locks).
   */
  concurrentHolds?: ConcurrentHolds;
};

/** Holds running at once on a lock meant to be exclusive, as one read saw them. */
export type ConcurrentHolds = {
  /** What saw them, in the kind's own short word ("quartz", "shedlock"): kept with the violation. */
  seenBy: string;
  /**
   * The hold the others ran beside: usually the read's holder, but not always (a ShedLock hold
   * whose second release the read saw is free by then). Its start as the source tells it, not
   * when Baton first saw it.
   */
  holder: ConcurrentHold;
  /** The other holds, each with its readable holder, exact token and start. */
  others: ConcurrentHold[];
};

/** One of the holds that ran at once: its readable holder, exact token and start. */
export type ConcurrentHold = { holder: string; token: string; since: string };

/** Whether a holder's session or lease still exists, as the source tells it after a read. */
export type HolderLiveness = "alive" | "gone";

/**
 * What a change signal says of a lock, in the one vocabulary every kind maps its own events into
 * (Redis keyspace events, etcd watch events, ZooKeeper watches...); the shared cycles decide on
 * nothing else.
 * - "release": a client ended the hold (deleted the key, unlocked, resigned) while its TTL or
 *   lease still ran.
 * - "expiry": the server ended it: the TTL or lease ran out, or it was evicted.
 * - "change": anything else, or a change the source does not say the cause of (a write, a
 *   renewal, a contender come or gone, a node deleted by its client or at its session's end):
 *   the lock is read again, and the read and the clock tell how a hold ended.
 */
export type HoldHintKind = "change" | "release" | "expiry";

/**
 * A change signal between polls. `event`: the source's own name for it (`del`, `DELETE`,
 * `children`...), kept in the change's record for people; null when the source names none.
 */
export type HoldHint = { key: string; kind: HoldHintKind; event: string | null; at: string };

/** Whether a hint says how a hold ended (a release or an expiry). */
export function isEndingHint(hint: Pick<HoldHint, "kind">): boolean {
  return hint.kind === "release" || hint.kind === "expiry";
}
