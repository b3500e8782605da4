// The board's filters applied to locks: cluster, kind, and the same words as the subscriptions.
// Pure and client-safe.

import { LOCK_SOURCE_KINDS, type LockRow, type LockSourceKind } from "@/lib/board/lock-types";

/** The board's kind filter: every kind, Pulsar subscriptions, every lock, or one source kind of locks. */
export type BoardKind = "pulsar" | "locks" | LockSourceKind;

export function isBoardKind(value: string | null): value is BoardKind {
  return value === "pulsar" || value === "locks" || (LOCK_SOURCE_KINDS as readonly string[]).includes(value ?? "");
}

export function showsSubscriptions(kind: string | null): boolean {
  return kind === null || kind === "pulsar" || !isBoardKind(kind);
}

export function showsLocks(kind: string | null): boolean {
  return kind !== "pulsar";
}

export const KIND_WORDS: Record<BoardKind, string> = { pulsar: "Pulsar subscriptions", locks: "Locks", redis: "Redis locks", zookeeper: "ZooKeeper locks", etcd: "etcd locks", dynamodb: "DynamoDB locks", kubernetes: "Kubernetes leases" };

function haystackOf(lock: LockRow): string {
  return [lock.cluster, lock.key, lock.pattern, lock.holder ?? "", ...lock.waiters, lock.health, ...lock.flags.map((f) => f.label)].join("\n").toLowerCase();
}

export function filterLocks(locks: LockRow[], filters: { cluster: string | null; kind: string | null; q: string }): LockRow[] {
  const words = filters.q.toLowerCase().split(/\s+/).filter(Boolean);
  const sourceKind = filters.kind !== null && filters.kind !== "locks" && filters.kind !== "pulsar" ? filters.kind : null;
  return locks.filter((lock) => {
    if (filters.cluster && lock.cluster !== filters.cluster) return false;
    if (sourceKind !== null && lock.sourceKind !== sourceKind) return false;
    if (words.length === 0) return true;
    const text = haystackOf(lock);
    return words.every((word) => text.includes(word));
  });
}
