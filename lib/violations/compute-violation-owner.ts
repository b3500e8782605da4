// Which consumer owned a violation's key at its time, from Baton's stored history: Key_Shared by
// the key's sticky-key hash in the split valid then; Failover (and Exclusive) by the partition's
// leader then, the partition routed from the key when the event names none. Whether the owner
// changed within the window around it, and from whom to whom. Pure and client-safe.

import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { type HashingScheme, routeKeyToPartition } from "@/lib/pulsar/producer-routing";
import type { RuleResult } from "@/lib/poller/contract/rule-result";
import type { StickyKeyHashFold } from "@/lib/pulsar/sticky-key-hash";
import { findOwnerInSplit } from "@/lib/violations/split-index";
import type { OwnerChange, OwnerCannotComputeReason, ViolationOwner } from "@/lib/violations/owner-types";

/** A split and the interval it was in force: it changed in (changedAfterMs, validFromMs], ended at validToMs. */
export type SplitPeriod = { split: HashRangeSplit; changedAfterMs: number | null; validFromMs: number; validToMs: number | null };

/** A change of a partition's leader, in (oldSeenAtMs, newSeenAtMs], with the consumers that joined and left with it. */
export type LeaderHistoryChange = {
  fromHolder: string | null;
  toHolder: string | null;
  oldSeenAtMs: number | null;
  newSeenAtMs: number;
  joined: string[];
  left: string[];
};

export type PartitionHistory = {
  /** When Baton first saw this subscription partition. */
  firstSeenAtMs: number;
  /** The leader as last observed (the owner after the last change). */
  holder: string | null;
  /** Sorted by validFromMs. */
  splits: SplitPeriod[];
  /** Sorted by newSeenAtMs. */
  leaderChanges: LeaderHistoryChange[];
};

/** What Baton knows of one subscription of one topic: its type and each partition's history (-1: not partitioned). */
export type SubscriptionHistory = { subscriptionType: string | null; partitions: Map<number, PartitionHistory> };

export type OwnerQuestion = { key: string; atMs: number; partition: number | null };

/** A partition first seen after the first ones was added later (the topic's partition count grew):
 * the partitions a poll finds together are stored in one transaction, with one first_seen_at. */
const PARTITION_ADDED_AFTER_MS = 0;

const cannot = (reason: OwnerCannotComputeReason, detail: string): ViolationOwner => ({ isComputed: false, reason, detail });
const iso = (ms: number) => new Date(ms).toISOString();

export { lineOfSplit } from "@/lib/violations/split-index";

/** The index of the period in force at `atMs` (the latest validFrom at or before it), or -1, by binary search. */
function findPeriodIndex(periods: readonly { validFromMs: number }[], atMs: number): number {
  let low = 0;
  let high = periods.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (periods[mid]!.validFromMs <= atMs) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/** The period whose split was in force at `atMs`, or null. */
export function findPeriodAt<T extends { validFromMs: number }>(periods: readonly T[], atMs: number): T | null {
  const index = findPeriodIndex(periods, atMs);
  return index < 0 ? null : periods[index]!;
}

function consumersOf(split: HashRangeSplit): Set<string> {
  return new Set(split.consumers.map((c) => c.consumer));
}

function diffConsumers(before: HashRangeSplit, after: HashRangeSplit): { joined: string[]; left: string[] } {
  const a = consumersOf(before);
  const b = consumersOf(after);
  return { joined: [...b].filter((n) => !a.has(n)).sort(), left: [...a].filter((n) => !b.has(n)).sort() };
}

const partitionStats = new WeakMap<SubscriptionHistory, { count: number; added: number[] }>();

/** How many partitions Baton has seen, and when those added after the first ones were first seen (once per history). */
function partitionsOf(history: SubscriptionHistory): { count: number; added: number[] } {
  let stats = partitionStats.get(history);
  if (!stats) {
    const seen = [...history.partitions.values()].map((p) => p.firstSeenAtMs);
    const firstKnownMs = Math.min(...seen);
    stats = { count: seen.length, added: seen.filter((ms) => ms > firstKnownMs + PARTITION_ADDED_AFTER_MS) };
    partitionStats.set(history, stats);
  }
  return stats;
}

/** The partition the key's message went to: the event's own, the topic's only one, or the producer's routing. */
function resolvePartition(
  question: OwnerQuestion,
  history: SubscriptionHistory,
  scheme: HashingScheme,
  windowMs: number,
): { partition: number; isRouted: boolean } | ViolationOwner {
  if (question.partition !== null) return { partition: question.partition, isRouted: false };
  if (history.partitions.has(-1)) return { partition: -1, isRouted: false };
  const { count: seenCount, added } = partitionsOf(history);
  if (seenCount === 0) return cannot("no-resource", "Baton has seen no partition of this subscription");
  if (added.some((ms) => ms >= question.atMs - windowMs && ms <= question.atMs + windowMs)) {
    return cannot(
      "partition-count-changed",
      `the topic's partition count changed within ±${Math.round(windowMs / 1000)} s of the violation: the key's partition is not known`,
    );
  }
  const count = seenCount - added.filter((ms) => ms > question.atMs + windowMs).length;
  const routed = routeKeyToPartition(question.key, count, scheme);
  if (!routed.ok) return cannot(routed.reason, routed.detail);
  return { partition: routed.value, isRouted: true };
}

function keySharedOwner(
  question: OwnerQuestion,
  periods: readonly SplitPeriod[],
  windowMs: number,
): { owner: string | null; hash: number; range: [number, number] | null; change: OwnerChange | null } | ViolationOwner {
  const periodIndex = findPeriodIndex(periods, question.atMs);
  const period = periodIndex < 0 ? null : periods[periodIndex]!;
  if (period === null) {
    const first = periods[0];
    return cannot(
      "no-history",
      first
        ? `Baton first recorded this subscription's hash ranges at ${iso(first.validFromMs)}, after the violation`
        : "Baton has recorded no hash ranges of this subscription",
    );
  }
  if (period.validToMs !== null && period.validToMs <= question.atMs) {
    return cannot("no-ranges", `the subscription had no consumers with hash ranges at the violation's time (since ${iso(period.validToMs)})`);
  }
  // The key's hash per fold, for this question only (a key is hashed once whatever the splits).
  const hashes = new Map<StickyKeyHashFold, RuleResult<number>>();
  const result = findOwnerInSplit(question.key, period.split, hashes);
  if (!result.ok) return cannot(result.reason, result.detail);

  // Each split that began within the window, against the one before it: did the key's owner move?
  const fromMs = question.atMs - windowMs;
  const toMs = question.atMs + windowMs;
  let change: OwnerChange | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let i = Math.max(1, findPeriodIndex(periods, fromMs)); i < periods.length && periods[i]!.validFromMs <= toMs; i++) {
    const before = periods[i - 1]!;
    const after = periods[i]!;
    if (after.validFromMs < fromMs) continue;
    const ownerBefore = findOwnerInSplit(question.key, before.split, hashes);
    const ownerAfter = findOwnerInSplit(question.key, after.split, hashes);
    const from = ownerBefore.ok ? ownerBefore.value.owner : null;
    const to = ownerAfter.ok ? ownerAfter.value.owner : null;
    if (from === to) continue;
    const distance = Math.abs(after.validFromMs - question.atMs);
    if (distance >= bestDistance) continue;
    bestDistance = distance;
    change = {
      from,
      to,
      changedAfter: after.changedAfterMs === null ? null : iso(after.changedAfterMs),
      changedAt: iso(after.validFromMs),
      rangeBefore: ownerBefore.ok ? ownerBefore.value.range : null,
      ...diffConsumers(before.split, after.split),
    };
  }
  return { owner: result.value.owner, hash: result.value.hash, range: result.value.range, change };
}

/** The latest change seen at or before `atMs`, by binary search. */
function findLastChangeAt(changes: readonly LeaderHistoryChange[], atMs: number): LeaderHistoryChange | null {
  let low = 0;
  let high = changes.length - 1;
  let found: LeaderHistoryChange | null = null;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (changes[mid]!.newSeenAtMs <= atMs) {
      found = changes[mid]!;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

const isWithin = (c: LeaderHistoryChange, atMs: number, windowMs: number) =>
  c.newSeenAtMs >= atMs - windowMs && (c.oldSeenAtMs ?? c.newSeenAtMs) <= atMs + windowMs;

function failoverOwner(
  question: OwnerQuestion,
  history: PartitionHistory,
  windowMs: number,
): { owner: string | null; change: OwnerChange | null } | ViolationOwner {
  const changes = history.leaderChanges;
  const last = findLastChangeAt(changes, question.atMs);
  let owner: string | null;
  if (last !== null) owner = last.toHolder;
  else if (history.firstSeenAtMs > question.atMs)
    return cannot("no-history", `Baton first saw this partition at ${iso(history.firstSeenAtMs)}, after the violation`);
  else owner = changes.length > 0 ? changes[0]!.fromHolder : history.holder;
  let change: OwnerChange | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of changes) {
    if (c.fromHolder === c.toHolder || !isWithin(c, question.atMs, windowMs)) continue;
    const distance = Math.abs(c.newSeenAtMs - question.atMs);
    if (distance >= bestDistance) continue;
    bestDistance = distance;
    change = {
      from: c.fromHolder,
      to: c.toHolder,
      changedAfter: c.oldSeenAtMs === null ? null : iso(c.oldSeenAtMs),
      changedAt: iso(c.newSeenAtMs),
      rangeBefore: null,
      joined: [...c.joined].sort(),
      left: [...c.left].sort(),
    };
  }
  return { owner, change };
}

function noOwnerRule(type: string | null): ViolationOwner {
  if (type === "Shared") return cannot("no-owner-rule", "a Shared subscription spreads keys over its consumers: no key has an owner");
  return cannot("no-owner-rule", `subscription type ${type ?? "unknown"} has no key owner rule`);
}

/** The owner of a violation's key at its time, and the change of owner within ±windowMs, or why it cannot be computed. */
export function computeViolationOwner(
  question: OwnerQuestion,
  history: SubscriptionHistory | null,
  options: { windowMs: number; scheme: HashingScheme },
): ViolationOwner {
  if (history === null) return cannot("no-resource", "Baton watches no subscription by the event's topic and subscription");
  const type = history.subscriptionType;
  const isKeyShared = type === "Key_Shared";
  if (!isKeyShared && type !== "Failover" && type !== "Exclusive") return noOwnerRule(type);
  const located = resolvePartition(question, history, options.scheme, options.windowMs);
  if ("isComputed" in located) return located;
  const partition = history.partitions.get(located.partition);
  if (!partition) return cannot("no-resource", `Baton has not seen partition ${located.partition} of this subscription`);
  const base = { isComputed: true as const, partition: located.partition, isPartitionRouted: located.isRouted };
  if (isKeyShared) {
    const answer = keySharedOwner(question, partition.splits, options.windowMs);
    if ("isComputed" in answer) return answer;
    return { ...base, rule: "key-shared", owner: answer.owner, hash: answer.hash, range: answer.range, change: answer.change };
  }
  const answer = failoverOwner(question, partition, options.windowMs);
  if ("isComputed" in answer) return answer;
  return { ...base, rule: "failover", owner: answer.owner, hash: null, range: null, change: answer.change };
}
