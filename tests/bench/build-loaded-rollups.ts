// The per-minute and hourly rollups of rows loaded by COPY, as the ingest statement would have
// kept them had the rows arrived through it (and as the partitioning migration fills the hourly
// one: each hour the sum of its minutes). Used by bench:event-store-load.
import type pg from "pg";

export async function buildLoadedRollups(client: pg.Client): Promise<void> {
  await client.query(`
    insert into violation_minute (bucket, service, subscription, violations, events)
    select date_trunc('minute', observed_at, 'UTC'), service, coalesce(subscription, ''), count(*) filter (where counter > 0), count(*)
    from exclusivity_event group by 1, 2, 3 order by 1, 2, 3
    on conflict (bucket, service, subscription) do update set violations = violation_minute.violations + excluded.violations, events = violation_minute.events + excluded.events`);
  await client.query("analyze violation_minute");
  const [{ exists }] = (await client.query<{ exists: boolean }>("select to_regclass('violation_hour') is not null as exists")).rows as [{ exists: boolean }];
  if (!exists) return;
  await client.query(`
    insert into violation_hour (bucket, service, subscription, violations, events)
    select date_trunc('hour', bucket, 'UTC'), service, subscription, sum(violations), sum(events) from violation_minute group by 1, 2, 3
    on conflict (bucket, service, subscription) do update set violations = excluded.violations, events = excluded.events`);
  await client.query("analyze violation_hour");
}
