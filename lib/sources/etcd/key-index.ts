import type { LeaseTimeToLive } from "./etcd-api";

// What the reads learned that the watch needs: which held thing a key belongs to and under which
// lease (a DELETE event carries neither), and when each holder's lease runs out (a delete at or
// after that is the lease expiring, not a release). The last TTL read of each lease also serves
// the next reads while it is far from its end (see read-holds.ts).

export type KnownLease = LeaseTimeToLive & { expiresAtMs: number };

export type KeyIndex = {
  remember(key: string, resourceKey: string, leaseId: string): void;
  find(key: string): { resourceKey: string; leaseId: string } | undefined;
  /** The key is gone (its lease's expiry goes with the lease's last key). */
  forget(key: string): void;
  /** A lease's TTL as just read. A lease already gone (TTL -1) tells nothing new: the last known expiry stays. */
  setLease(lease: LeaseTimeToLive): void;
  leaseOf(leaseId: string): KnownLease | undefined;
  leaseExpiryOf(leaseId: string): number | undefined;
  /** Drops what is known of the held thing's keys that a fresh read no longer shows. */
  retain(resourceKey: string, keys: ReadonlySet<string>): void;
};

export function createKeyIndex(): KeyIndex {
  const keys = new Map<string, { resourceKey: string; leaseId: string }>();
  const keysOf = new Map<string, Set<string>>();
  const leases = new Map<string, KnownLease>();
  /** Keys per lease: a lease outlives its keys (a Go session holds many), its expiry is kept while one remains. */
  const keyCountOf = new Map<string, number>();

  function drop(key: string) {
    const entry = keys.get(key);
    if (!entry) return undefined;
    keys.delete(key);
    const siblings = keysOf.get(entry.resourceKey);
    siblings?.delete(key);
    if (siblings?.size === 0) keysOf.delete(entry.resourceKey);
    const left = (keyCountOf.get(entry.leaseId) ?? 1) - 1;
    if (left > 0) keyCountOf.set(entry.leaseId, left);
    else {
      keyCountOf.delete(entry.leaseId);
      leases.delete(entry.leaseId);
    }
    return entry;
  }

  return {
    remember(key, resourceKey, leaseId) {
      const before = keys.get(key);
      if (before?.leaseId === leaseId && before.resourceKey === resourceKey) return;
      if (before) drop(key);
      keys.set(key, { resourceKey, leaseId });
      keyCountOf.set(leaseId, (keyCountOf.get(leaseId) ?? 0) + 1);
      const siblings = keysOf.get(resourceKey);
      if (siblings) siblings.add(key);
      else keysOf.set(resourceKey, new Set([key]));
    },
    find: (key) => keys.get(key),
    forget: (key) => void drop(key),
    setLease(lease) {
      if (lease.ttlSeconds >= 0) leases.set(lease.leaseId, { ...lease, expiresAtMs: Date.parse(lease.answeredAt) + lease.ttlSeconds * 1000 });
    },
    leaseOf: (leaseId) => leases.get(leaseId),
    leaseExpiryOf: (leaseId) => leases.get(leaseId)?.expiresAtMs,
    retain(resourceKey, present) {
      for (const key of [...(keysOf.get(resourceKey) ?? [])]) if (!present.has(key)) drop(key);
    },
  };
}
