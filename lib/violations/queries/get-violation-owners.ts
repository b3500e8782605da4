import "server-only";

import type { Db } from "@/lib/db/client";
import { join, sql } from "@/lib/db/sql";
import { type OwnerGroup, ownerGroupOf, type ViolationOwner } from "@/lib/violations/owner-types";
import { computeOwners, type OwnerSettings } from "@/lib/violations/queries/read-owner-history";

// The latest violations of a range with their keys' owners, grouped: "owner changed around the
// violation" (a rebalance or failover explains the overlap) vs "owner stable" (two workers inside
// with no rebalance at all: the alarming kind).

export const OWNER_GROUPS = ["owner-changed", "owner-stable", "not-computed"] as const satisfies readonly OwnerGroup[];
/** One page holds at most this many violations: the owner lookups of a page stay within one read. */
export const MAX_OWNER_PAGE = 10_000;

export type OwnedViolation = {
  eventId: string;
  key: string;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  observedAt: string;
  group: OwnerGroup;
  owner: ViolationOwner;
};

export type ViolationOwners = {
  from: string;
  to: string;
  windowMs: number;
  limit: number;
  /** True when the range holds more violations than `limit`: the page holds the latest. */
  isTruncated: boolean;
  /** The page's violations per group (before the `group` filter). */
  counts: Record<OwnerGroup, number>;
  /** The page's violations of the chosen group (all when none), newest first. */
  violations: OwnedViolation[];
};

export type ViolationOwnersQuery = {
  fromMs: number;
  toMs: number;
  service: string | null;
  subscription: string | null;
  group: OwnerGroup | null;
  limit: number;
};

type Row = { event_id: string; key: string; service: string; worker: string; topic: string | null; subscription: string | null; partition: number | null; observed_at: string };

/** The range's latest violations (one more than the page, to tell a truncation), as one JSON value. */
async function readViolations(db: Db, query: ViolationOwnersQuery): Promise<Row[]> {
  const conditions = [
    sql`e.observed_at >= ${new Date(query.fromMs).toISOString()}::timestamptz`,
    sql`e.observed_at < ${new Date(query.toMs).toISOString()}::timestamptz`,
    // is_violation prunes the non-violation partitions; counter > 0 matches the partial indexes.
    sql`e.is_violation and e.counter > 0`,
  ];
  if (query.service !== null) conditions.push(sql`e.service = ${query.service}`);
  if (query.subscription !== null) conditions.push(sql`coalesce(e.subscription, '') = ${query.subscription}`);
  const [result] = await db.$queryRaw<{ rows: Row[] }[]>(sql`
    select coalesce(json_agg(x), '[]') as rows from (
      select baton_id_text(e.event_id) as event_id, e.key, e.service, e.worker, e.topic, e.subscription, e.partition, e.observed_at
      from exclusivity_event e
      where ${join(conditions, " and ")}
      order by e.observed_at desc, e.event_id desc
      limit ${query.limit + 1}
    ) x`);
  return result?.rows ?? [];
}

export async function getViolationOwners(db: Db, query: ViolationOwnersQuery, settings: OwnerSettings): Promise<ViolationOwners> {
  const rows = await readViolations(db, query);
  const page = rows.slice(0, query.limit).map((row) => ({
    eventId: row.event_id,
    key: row.key,
    service: row.service,
    worker: row.worker,
    topic: row.topic,
    subscription: row.subscription,
    partition: row.partition,
    observedAt: new Date(row.observed_at).toISOString(),
  }));
  const owners = await computeOwners(db, page, settings);
  const counts: Record<OwnerGroup, number> = { "owner-changed": 0, "owner-stable": 0, "not-computed": 0 };
  const violations: OwnedViolation[] = [];
  page.forEach((violation, i) => {
    const owner = owners[i]!;
    const group = ownerGroupOf(owner);
    counts[group] += 1;
    if (query.group === null || query.group === group) violations.push({ ...violation, group, owner });
  });
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    windowMs: settings.windowMs,
    limit: query.limit,
    isTruncated: rows.length > query.limit,
    counts,
    violations,
  };
}
