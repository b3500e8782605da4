// When Baton first saw each lock's current recordVersionNumber: the only clock a lock table has
// (it stores no times). A version seen again keeps its first sighting; a new one starts afresh.
// After a read that failed, every version starts afresh: time Baton could not see the table must
// not count as time without a heartbeat (a server down for longer than a lease would otherwise
// make every lock look expired when it is back).

export type VersionClock = {
  /** The first sighting of `version` for `resourceKey`, recording `nowMs` when it is new. */
  firstSeen(resourceKey: string, version: string, nowMs: number): number;
  /** Forgets the locks not in `present` (their items are gone). */
  retain(present: ReadonlySet<string>): void;
  /** Forgets everything: the next read starts every clock again. */
  reset(): void;
};

export function createVersionClock(): VersionClock {
  const seen = new Map<string, { version: string; firstSeenMs: number }>();
  return {
    firstSeen(resourceKey, version, nowMs) {
      const known = seen.get(resourceKey);
      if (known && known.version === version) return known.firstSeenMs;
      seen.set(resourceKey, { version, firstSeenMs: nowMs });
      return nowMs;
    },
    retain(present) {
      for (const key of seen.keys()) if (!present.has(key)) seen.delete(key);
    },
    reset: () => seen.clear(),
  };
}
