import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { sql } from "@/lib/db/sql";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { DEFAULT_HASHING_SCHEME, type HashingScheme } from "@/lib/pulsar/producer-routing";
import { computeViolationOwner, type PartitionHistory, type SubscriptionHistory } from "@/lib/violations/compute-violation-owner";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { createSplitCache } from "@/lib/violations/queries/split-cache";
import { type ResourceRef, resourceRefOf } from "@/lib/violations/resource-ref";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

// The stored history the owners of a page of violations are computed from, in three statements
// whatever the number of violations: the subscriptions' partitions, their Key_Shared splits in
// force within the page's span (key_shared_range_split's (resource_id, valid_from) index), and
// their leader changes (holder_change's (resource_id, new_seen_at) index).

type ResourceRow = {
  id: bigint;
  cluster_id: number;
  topic: string;
  subscription: string;
  partition: number;
  subscription_type: string | null;
  holder: string | null;
  first_seen_at: Date;
  last_observed_at: Date | null;
};
type SplitRow = { id: bigint; resource_id: bigint; digest: string; changed_after: Date | null; valid_from: Date; valid_to: Date | null };

/** This process's parsed splits (lib/violations/queries/split-cache.ts). */
const splitCache = createSplitCache();
type ChangeRow = {
  resource_id: bigint;
  from_holder: string | null;
  to_holder: string | null;
  old_seen_at: Date | null;
  new_seen_at: Date;
  joined: string[] | null;
  left: string[] | null;
};

/** The consumers that joined and left with a leader change (the poller's details). */
const MEMBERSHIP_SQL = sql`array(select jsonb_array_elements_text(coalesce(h.details->'added', '[]'))) as joined,
  array(select jsonb_array_elements_text(coalesce(h.details->'removed', '[]'))) as left`;

const iso = (ms: number) => new Date(ms).toISOString();
const pairKey = (topic: string, subscription: string) => `${topic}|${subscription}`;

/** Per (topic, subscription): its history over [fromMs, toMs]. A subscription watched in two clusters is read from the one observed last. */
export async function readOwnerHistory(
  db: SqlDb,
  refs: readonly Pick<ResourceRef, "topic" | "subscription">[],
  fromMs: number,
  toMs: number,
): Promise<Map<string, SubscriptionHistory>> {
  const pairs = new Map(refs.map((r) => [pairKey(r.topic, r.subscription), r]));
  if (pairs.size === 0) return new Map();
  const list = [...pairs.values()];
  const resources = await db.$queryRaw<ResourceRow[]>(sql`
    select r.id, r.cluster_id, r.topic, r.subscription, coalesce(r.partition, -1) as partition, r.subscription_type, r.holder, r.first_seen_at, ${LAST_OBSERVED_AT} as last_observed_at
    from held_resource r
    ${OBSERVATION_SWEEP_JOIN}
    where r.kind = 'PULSAR_SUBSCRIPTION_PARTITION'
      and (r.topic, r.subscription) in (select * from unnest(${list.map((p) => p.topic)}::text[], ${list.map((p) => p.subscription)}::text[]))`);
  const chosenCluster = new Map<string, { clusterId: number; observedMs: number }>();
  for (const row of resources) {
    const key = pairKey(row.topic, row.subscription);
    const observedMs = row.last_observed_at?.getTime() ?? 0;
    const chosen = chosenCluster.get(key);
    if (!chosen || observedMs > chosen.observedMs) chosenCluster.set(key, { clusterId: row.cluster_id, observedMs });
  }
  const kept = resources.filter((row) => chosenCluster.get(pairKey(row.topic, row.subscription))?.clusterId === row.cluster_id);
  const ids = kept.map((row) => row.id);
  if (ids.length === 0) return new Map();
  const [splits, changes] = await Promise.all([
    db.$queryRaw<SplitRow[]>(sql`
      select id, resource_id, signature as digest, changed_after, valid_from, valid_to from key_shared_range_split
      where resource_id = any(${ids}::bigint[]) and valid_from <= ${iso(toMs)}::timestamptz and (valid_to is null or valid_to >= ${iso(fromMs)}::timestamptz)
      order by resource_id, valid_from`),
    // The changes within the span, and each resource's first change after it: whoever it took
    // the partition from held it until then.
    db.$queryRaw<ChangeRow[]>(sql`
      select h.resource_id, h.from_holder, h.to_holder, h.old_seen_at, h.new_seen_at, ${MEMBERSHIP_SQL} from holder_change h
      where h.resource_id = any(${ids}::bigint[]) and h.kind in ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED')
        and h.new_seen_at >= ${iso(fromMs)}::timestamptz and h.new_seen_at <= ${iso(toMs)}::timestamptz
      union all
      select n.resource_id, n.from_holder, n.to_holder, n.old_seen_at, n.new_seen_at, n.joined, n.left from unnest(${ids}::bigint[]) as r(id)
      cross join lateral (
        select h.resource_id, h.from_holder, h.to_holder, h.old_seen_at, h.new_seen_at, ${MEMBERSHIP_SQL} from holder_change h
        where h.resource_id = r.id and h.kind in ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED') and h.new_seen_at > ${iso(toMs)}::timestamptz
        order by h.new_seen_at limit 1
      ) n
      order by resource_id, new_seen_at`),
  ]);
  const byId = new Map<bigint, PartitionHistory>();
  const histories = new Map<string, SubscriptionHistory>();
  for (const row of kept) {
    const key = pairKey(row.topic, row.subscription);
    let history = histories.get(key);
    if (!history) histories.set(key, (history = { subscriptionType: row.subscription_type, partitions: new Map() }));
    history.subscriptionType ??= row.subscription_type;
    const partition: PartitionHistory = { firstSeenAtMs: row.first_seen_at.getTime(), holder: row.holder, splits: [], leaderChanges: [] };
    history.partitions.set(row.partition, partition);
    byId.set(row.id, partition);
  }
  const parsed = await readSplits(db, splits);
  for (const row of splits) {
    const split = parsed.get(row.digest);
    if (split)
      byId.get(row.resource_id)?.splits.push({
        split,
        changedAfterMs: row.changed_after?.getTime() ?? null,
        validFromMs: row.valid_from.getTime(),
        validToMs: row.valid_to?.getTime() ?? null,
      });
  }
  for (const row of changes) {
    byId.get(row.resource_id)?.leaderChanges.push({
      fromHolder: row.from_holder,
      toHolder: row.to_holder,
      oldSeenAtMs: row.old_seen_at?.getTime() ?? null,
      newSeenAtMs: row.new_seen_at.getTime(),
      joined: row.joined ?? [],
      left: row.left ?? [],
    });
  }
  return histories;
}

/**
 * The splits of these digests: from this process's cache, the others read (as text: a day of
 * splits is megabytes of JSON, which the driver's generic JSON decoding handles several times
 * slower than one JSON.parse) and kept.
 */
async function readSplits(db: SqlDb, rows: readonly Pick<SplitRow, "id" | "digest">[]): Promise<Map<string, HashRangeSplit>> {
  const found = new Map<string, HashRangeSplit>();
  const missing = new Map<string, bigint>();
  for (const { id, digest } of rows) {
    const split = splitCache.get(digest);
    if (split) found.set(digest, split);
    else missing.set(digest, id);
  }
  if (missing.size === 0) return found;
  const read = await db.$queryRaw<{ digest: string; split: string }[]>(sql`
    select signature as digest, split::text as split from key_shared_range_split where id = any(${[...missing.values()]}::bigint[])`);
  for (const row of read) {
    const split = JSON.parse(row.split) as HashRangeSplit;
    splitCache.set(row.digest, split);
    found.set(row.digest, split);
  }
  return found;
}

export type OwnerSubject = { key: string; topic: string | null; subscription: string | null; partition: number | null; observedAt: string };

export type OwnerSettings = { windowMs: number; producerRouting: Readonly<Record<string, HashingScheme>> };

/** The owner of each violation's key at its time (in the subjects' order), from one read of the history. */
export async function computeOwners(db: SqlDb, subjects: readonly OwnerSubject[], settings: OwnerSettings): Promise<ViolationOwner[]> {
  // A page names a handful of subscription partitions: each name is normalised once.
  const refCache = new Map<string, ResourceRef | null>();
  const refs = subjects.map((s) => {
    const cacheKey = `${s.topic}\u0000${s.subscription}\u0000${s.partition}`;
    let ref = refCache.get(cacheKey);
    if (ref === undefined) refCache.set(cacheKey, (ref = resourceRefOf(s)));
    return ref;
  });
  const located = [...refCache.values()].filter((r): r is ResourceRef => r !== null);
  if (located.length === 0) return subjects.map(() => ({ isComputed: false, reason: "no-resource", detail: "the event names no topic and subscription" }));
  let fromMs = Number.POSITIVE_INFINITY;
  let toMs = Number.NEGATIVE_INFINITY;
  for (const s of subjects) {
    const ms = Date.parse(s.observedAt);
    if (ms < fromMs) fromMs = ms;
    if (ms > toMs) toMs = ms;
  }
  const histories = await readOwnerHistory(db, located, fromMs - settings.windowMs, toMs + settings.windowMs);
  return subjects.map((subject, i) => {
    const ref = refs[i];
    if (!ref) return { isComputed: false, reason: "no-resource", detail: "the event names no topic and subscription" };
    const scheme = settings.producerRouting[ref.topic] ?? DEFAULT_HASHING_SCHEME;
    return computeViolationOwner(
      { key: subject.key, atMs: Date.parse(subject.observedAt), partition: ref.partition },
      histories.get(pairKey(ref.topic, ref.subscription)) ?? null,
      { windowMs: settings.windowMs, scheme },
    );
  });
}
