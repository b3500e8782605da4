import "server-only";

import { join, sql, type Sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { serviceWindowsSql } from "@/lib/deployments/window-sql";
import type { ClassificationScope } from "@/lib/violations/queries/classification-sql";
import { scopeOf, type ViolationQuery } from "@/lib/violations/queries/get-violation-timeline";
import { readViolationRows, singleBin } from "@/lib/violations/queries/read-violation-rows";
import { assignBuckets, summariseBuckets } from "@/lib/violations/summarise-buckets";
import type { NamedCounts, TopRanking, TopViolations } from "@/lib/violations/violation-types";

export const TOP_LISTS = ["keys", "workers", "services", "subscriptions"] as const;
export type TopList = (typeof TOP_LISTS)[number];

type RankedRow = { list: "key" | "worker"; name: string; violations: number; inside: number };

function orderSql(ranking: TopRanking): Sql {
  return ranking === "outside"
    ? sql`count(*) - count(*) filter (where inside) desc, count(*) desc`
    : sql`count(*) desc, count(*) - count(*) filter (where inside) desc`;
}

/**
 * The top keys and workers by violations, in one pass over the range's violations: the
 * violations (counter > 0) of the range, each classified against its service's windows, are
 * materialised once and grouped twice.
 */
async function rankKeysAndWorkers(
  db: SqlDb,
  scope: ClassificationScope,
  limit: number,
  ranking: TopRanking,
): Promise<{ keys: NamedCounts[]; workers: NamedCounts[] }> {
  const conditions = [
    sql`e.observed_at >= ${new Date(scope.startMs).toISOString()}::timestamptz`,
    sql`e.observed_at < ${new Date(scope.endMs).toISOString()}::timestamptz`,
    // is_violation prunes the non-violation partitions; counter > 0 matches the partial indexes.
    sql`e.is_violation and e.counter > 0`,
  ];
  if (scope.service !== null) conditions.push(sql`e.service = ${scope.service}`);
  if (scope.subscription !== null) conditions.push(sql`coalesce(e.subscription, '') = ${scope.subscription}`);
  const rows = await db.$queryRaw<RankedRow[]>(sql`
    with v as materialized (
      select e.key, e.worker, coalesce(e.observed_at <@ w.w, false) as inside
      from exclusivity_event e
      left join (${serviceWindowsSql(scope)}) w on w.service = e.service
      where ${join(conditions, " and ")}
    )
    (select 'key' as list, key as name, count(*)::int as violations, count(*) filter (where inside)::int as inside
     from v group by key order by ${orderSql(ranking)}, key limit ${limit})
    union all
    (select 'worker' as list, worker as name, count(*)::int as violations, count(*) filter (where inside)::int as inside
     from v group by worker order by ${orderSql(ranking)}, worker limit ${limit})`);
  const toCounts = (row: RankedRow): NamedCounts => ({ name: row.name, violations: row.violations, inside: row.inside, outside: row.violations - row.inside });
  return { keys: rows.filter((r) => r.list === "key").map(toCounts), workers: rows.filter((r) => r.list === "worker").map(toCounts) };
}

/** The range's top keys, workers, services and subscriptions, each with its in/out-of-deployment split. */
export async function getTopViolations(
  db: SqlDb,
  query: ViolationQuery & { limit: number; ranking: TopRanking; lists: readonly TopList[] },
): Promise<TopViolations> {
  const nowMs = query.nowMs ?? Date.now();
  const scope = scopeOf(query, nowMs);
  const wantsRaw = query.lists.includes("keys") || query.lists.includes("workers");
  const wantsRollup = query.lists.includes("services") || query.lists.includes("subscriptions");
  const whole = [{ start: scope.startMs, end: scope.endMs, isPartial: false }];
  const [raw, rows] = await Promise.all([
    wantsRaw ? rankKeysAndWorkers(db, scope, query.limit, query.ranking) : Promise.resolve(null),
    wantsRollup ? readViolationRows(db, scope, singleBin(scope)) : Promise.resolve([]),
  ]);
  const summary = summariseBuckets(whole, assignBuckets(rows, whole), [], query.ranking);
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    ranking: query.ranking,
    keys: query.lists.includes("keys") ? (raw?.keys ?? null) : null,
    workers: query.lists.includes("workers") ? (raw?.workers ?? null) : null,
    services: query.lists.includes("services") ? summary.services.slice(0, query.limit) : [],
    subscriptions: query.lists.includes("subscriptions") ? summary.subscriptions.slice(0, query.limit) : [],
  };
}
