// The board's filters applied to locks: cluster, kind, and the same words as the subscriptions.
// Pure and client-safe.

import type { LockRow } from "@/lib/board/lock-types";
import { ALL_KIND_DESCRIPTIONS, findKindDescription, type KindName } from "@/lib/sources/kind-descriptions";

/** The board's kind filter: every kind, every lock, or one kind (Pulsar's subscriptions, or one source kind of locks). */
export type BoardKind = "locks" | KindName;

export function isBoardKind(value: string | null): value is BoardKind {
  return value === "locks" || (value !== null && findKindDescription(value) !== undefined);
}

/** The kind filter's choices: the subscription kinds, every lock, then each lock kind a configured cluster has. */
export function listBoardKinds(configuredLockKinds: readonly string[]): string[] {
  const subscriptionKinds = ALL_KIND_DESCRIPTIONS.filter((description) => description.shape === "subscription-partition").map(
    (description) => description.kind,
  );
  return [...subscriptionKinds, "locks", ...new Set(configuredLockKinds)];
}

/** A kind whose held things are subscriptions (Pulsar), not locks. */
function isSubscriptionKind(kind: string): boolean {
  return findKindDescription(kind)?.shape === "subscription-partition";
}

export function showsSubscriptions(kind: string | null): boolean {
  return kind === null || isSubscriptionKind(kind) || !isBoardKind(kind);
}

export function showsLocks(kind: string | null): boolean {
  return kind === null || !isSubscriptionKind(kind);
}

const BOARD_WORDS: ReadonlyMap<string, string> = new Map([
  ["locks", "Locks"],
  ...ALL_KIND_DESCRIPTIONS.map((description) => [description.kind, description.boardWords] as const),
]);

/** The board's words for a kind filter ("Redis locks"); a value the board does not know, as it is. */
export function describeBoardKind(kind: string): string {
  return BOARD_WORDS.get(kind) ?? kind;
}

function haystackOf(lock: LockRow): string {
  return [lock.cluster, lock.key, lock.pattern, lock.holder ?? "", ...lock.waiters, lock.health, ...lock.flags.map((f) => f.label)].join("\n").toLowerCase();
}

export function filterLocks(locks: LockRow[], filters: { cluster: string | null; kind: string | null; q: string }): LockRow[] {
  const words = filters.q.toLowerCase().split(/\s+/).filter(Boolean);
  const sourceKind = filters.kind !== null && filters.kind !== "locks" && !isSubscriptionKind(filters.kind) ? filters.kind : null;
  return locks.filter((lock) => {
    if (filters.cluster && lock.cluster !== filters.cluster) return false;
    if (sourceKind !== null && lock.sourceKind !== sourceKind) return false;
    if (words.length === 0) return true;
    const text = haystackOf(lock);
    return words.every((word) => text.includes(word));
  });
}
