import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import type { ChangeCount, MetricSnapshot, ResourceCount, ResourceHolder, ServiceEvents, SourceState } from "@/lib/metrics/metric-snapshot";
import { everyWindowSql } from "@/lib/deployments/window-sql";

export type SnapshotSettings = { clusterNames: string[]; maxResourceSeries: number; deploymentGraceMs: number; nowMs?: number };

/**
 * Reads everything /metrics reports from the database, in parallel statements. Aggregates are
 * grouped in SQL (raw SQL: a scrape at 10,000 resources must answer in well under 100 ms, and
 * Prisma's groupBy cannot join the cluster names or filter counts). Per-resource holders are
 * kept only while the held resources (one series each) are at most `maxResourceSeries`.
 */
export async function readMetricSnapshot(db: Db, settings: SnapshotSettings): Promise<MetricSnapshot> {
  const nowMs = settings.nowMs ?? Date.now();
  const names = settings.clusterNames;
  const max = settings.maxResourceSeries;
  const [holders, resources, changes, sources, services, deadLetters] = await Promise.all([
    max > 0 ? readHolders(db, names, max) : Promise.resolve(null),
    readResourceCounts(db, names),
    readChangeCounts(db, names),
    readSources(db, names),
    readServiceEvents(db, settings.deploymentGraceMs, nowMs),
    db.$queryRaw<{ source: string; count: bigint }[]>(sql`select source, count(*) as count from dead_letter group by source order by source`),
  ]);
  return {
    nowSeconds: nowMs / 1000,
    holders: holders !== null && holders.length <= max ? holders : null,
    resources,
    changes,
    sources,
    services,
    deadLetters: deadLetters.map((row) => ({ source: row.source, count: Number(row.count) })),
    maxResourceSeries: settings.maxResourceSeries,
  };
}

/** At most `max` + 1 rows: one more than the limit says "too many" without reading them all. */
async function readHolders(db: Db, names: string[], max: number): Promise<ResourceHolder[]> {
  if (names.length === 0) return [];
  return db.$queryRaw<ResourceHolder[]>(sql`
    select c.name as cluster, r.kind::text as kind, r.resource_key as resource, r.holder
    from held_resource r join cluster c on c.id = r.cluster_id
    where c.name = any(${names}::text[]) and r.gone_at is null and r.holder is not null
    order by c.name, r.resource_key
    limit ${max + 1}`);
}

async function readResourceCounts(db: Db, names: string[]): Promise<ResourceCount[]> {
  if (names.length === 0) return [];
  // held + free = every watched resource; stale counts those of them whose observations fail.
  const rows = await db.$queryRaw<{ cluster: string; kind: string; held: bigint; free: bigint; stale: bigint }[]>(sql`
    select c.name as cluster, r.kind::text as kind,
      count(*) filter (where r.holder is not null) as held,
      count(*) filter (where r.holder is null) as free,
      count(*) filter (where r.stale_since is not null) as stale
    from held_resource r join cluster c on c.id = r.cluster_id
    where c.name = any(${names}::text[]) and r.gone_at is null
    group by c.name, r.kind order by c.name, r.kind`);
  return rows.flatMap((row) =>
    (["held", "free", "stale"] as const).map((state) => ({ cluster: row.cluster, kind: row.kind, state, count: Number(row[state]) })),
  );
}

async function readChangeCounts(db: Db, names: string[]): Promise<ChangeCount[]> {
  if (names.length === 0) return [];
  const rows = await db.$queryRaw<{ cluster: string; kind: string; cause: string; count: bigint; expired: bigint }[]>(sql`
    select c.name as cluster, h.kind::text as kind, h.cause::text as cause, count(*) as count,
      count(*) filter (where h.ending = 'EXPIRED') as expired
    from holder_change h join cluster c on c.id = h.cluster_id
    where c.name = any(${names}::text[])
    group by c.name, h.kind, h.cause order by c.name, h.kind, h.cause`);
  return rows.map((row) => ({ cluster: row.cluster, kind: row.kind, cause: row.cause, count: Number(row.count), expired: Number(row.expired) }));
}

async function readSources(db: Db, names: string[]): Promise<SourceState[]> {
  if (names.length === 0) return [];
  const rows = await db.$queryRaw<
    {
      cluster: string;
      kind: string;
      poll_interval_ms: number;
      finished_at: Date | null;
      error_count: number | null;
      duration_ms: number | null;
      epoch: bigint | null;
      heartbeat_at: Date | null;
      stale: bigint;
    }[]
  >(sql`
    select c.name as cluster, lower(c.kind::text) as kind, c.poll_interval_ms, p.finished_at, p.error_count, p.duration_ms, l.epoch, l.heartbeat_at,
      (select count(*) from held_resource r where r.cluster_id = c.id and r.gone_at is null and r.stale_since is not null) as stale
    from cluster c
    left join poller_lease l on l.cluster_id = c.id
    left join lateral (select finished_at, error_count, duration_ms from poll_run where cluster_id = c.id order by started_at desc limit 1) p on true
    where c.name = any(${names}::text[])
    order by c.name`);
  return rows.map((row) => ({
    cluster: row.cluster,
    kind: row.kind,
    pollIntervalMs: row.poll_interval_ms,
    lastPollSeconds: row.finished_at ? row.finished_at.getTime() / 1000 : null,
    lastPollErrors: row.error_count,
    lastPollDurationMs: row.duration_ms,
    pollerEpoch: row.epoch === null ? null : Number(row.epoch),
    heartbeatSeconds: row.heartbeat_at ? row.heartbeat_at.getTime() / 1000 : null,
    staleResources: Number(row.stale),
  }));
}

/**
 * Sums the per-minute rollup (kept forever, unlike raw events) by service, split by whether a
 * deployment of the service covers the minute. The rule is the violations page's
 * (lib/deployments/deployment-windows.ts): from the minute the deployment started through the
 * minute its finish plus the grace period falls in; an unfinished one runs until now, at most a day.
 */
async function readServiceEvents(db: Db, graceMs: number, nowMs: number): Promise<ServiceEvents[]> {
  // Windows first (one per deployment, lib/deployments/window-sql.ts), then the rollup rows
  // inside them through the rollup's (bucket, ...) key: a correlated "exists" per rollup row took
  // seconds at a week of rollups.
  // DISTINCT: a minute covered by two overlapping deployments counts once.
  const rows = await db.$queryRaw<
    { service: string; events: bigint; violations: bigint; inside_events: bigint | null; inside_violations: bigint | null }[]
  >(sql`
    with windows as (
      ${everyWindowSql({ nowMs, graceMs })}
    ), inside as (
      select service, sum(events)::bigint as events, sum(violations)::bigint as violations from (
        select distinct v.bucket, v.service, v.subscription, v.events, v.violations
        from windows w join violation_minute v on v.bucket >= w.starts and v.bucket < w.ends and v.service = w.service
      ) covered group by service
    ), total as (
      select service, sum(events)::bigint as events, sum(violations)::bigint as violations from violation_minute group by service
    )
    select t.service, t.events, t.violations, i.events as inside_events, i.violations as inside_violations
    from total t left join inside i on i.service = t.service
    order by t.service`);
  return rows.flatMap((row) => {
    const insideEvents = Number(row.inside_events ?? 0n);
    const insideViolations = Number(row.inside_violations ?? 0n);
    return [
      { service: row.service, isInsideDeployment: false, events: Number(row.events) - insideEvents, violations: Number(row.violations) - insideViolations },
      ...(row.inside_events === null ? [] : [{ service: row.service, isInsideDeployment: true, events: insideEvents, violations: insideViolations }]),
    ];
  });
}
