// One word per lock kind for "how long the hold lasts unless renewed", with where the figure
// comes from: the lock page, the board and the kind panels all say it the same way. Pure and
// client-safe.

export type TtlTerm = {
  /** "TTL", "Lease", "Session timeout". */
  term: string;
  /** Where Baton reads it, in words: the lock page says it beside the figure. */
  source: string;
};

const TERMS: Record<string, TtlTerm> = {
  redis: { term: "TTL", source: "the lock key's TTL in Redis (PTTL), the longest read this hold" },
  zookeeper: { term: "Session timeout", source: "the holder's ZooKeeper session: its node goes when the session expires" },
  etcd: { term: "Lease", source: "the TTL granted to the holder's etcd lease" },
  dynamodb: { term: "Lease", source: "the lock item's leaseDuration" },
  kubernetes: { term: "Lease", source: "the Lease's leaseDurationSeconds" },
};

export function ttlTermOf(kind: string, details: Record<string, unknown>): TtlTerm {
  if (kind === "redis" && details.redlock === true) return { term: "TTL", source: "the lock key's TTL (PTTL) on the masters that hold it, the longest read this hold" };
  return TERMS[kind] ?? { term: "TTL", source: "as the source reports it" };
}

/**
 * The full figure of a hold: what the holder set (the longest TTL read this hold, since a TTL
 * read later has already run down), else the latest reading. The time left counts down apart.
 */
export function fullTtlMs(lock: { ttlMs: number | null; stats: { tenureMaxTtlMs: number | null } }): number | null {
  return lock.stats.tenureMaxTtlMs ?? lock.ttlMs;
}
