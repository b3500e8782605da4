import { rmSync } from "node:fs";

import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

import { applyMigrations } from "@/lib/db/migrate";
import { createOldLayoutMigrationsDir, PARTITIONED_LAYOUT_MIGRATION } from "@/tests/support/old-layout-migrations";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The migration to the partitioned layout on a populated store of the old layout: every row is
// kept (counts per day and kind, and a sample compared column by column), each lands in its
// partition (a violation in its day's, any other event in its hour's; none in the DEFAULT ones),
// is_violation says counter > 0, and the new hourly rollup holds the per-minute rollup's sums.
// The migrations after it run too: the ids and trace ids (text ids, md5 trace ids), packed into
// bytes by 20261127120000_compact_ids, read back as they were.

const DAY = 86_400_000;
const EVENTS = 5_000;
const SPAN_DAYS = 10;
const drops: (() => Promise<void>)[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Rows per UTC day and kind, as text lines: what must survive the migration exactly. */
const COUNTS_SQL = `
  select day || ' ' || is_violation || ' ' || count(*) as line
  from (select to_char(observed_at at time zone 'UTC', 'YYYY-MM-DD') as day, counter > 0 as is_violation from exclusivity_event) e
  group by day, is_violation order by day, is_violation`;

/** The per-minute rollup summed per hour, and the hourly rollup, as text lines. */
const MINUTES_PER_HOUR_SQL = `
  select date_trunc('hour', bucket, 'UTC') || ' ' || service || ' ' || subscription || ' ' || sum(violations) || ' ' || sum(events) as line
  from violation_minute group by date_trunc('hour', bucket, 'UTC'), service, subscription order by 1`;
const HOURS_SQL = `
  select bucket || ' ' || service || ' ' || subscription || ' ' || violations || ' ' || events as line from violation_hour order by 1`;

/**
 * Every column the two layouts share, as one JSON text per row, for a fixed sample of ids. The
 * ids are text in the old layout and packed bytes since 20261127120000_compact_ids: `id` is the
 * SQL that reads one back as text.
 */
const sampleSql = (id: (column: string) => string) => `
  select json_build_array(${id("event_id")}, key, counter, service, worker, topic, subscription, partition, ${id("trace_id")},
    observed_at, received_at, source, attributes, others_inside, lock)::text as row
  from exclusivity_event where ${id("event_id")} in (select 'mig-' || g from generate_series(1, $1, 37) g) order by 1`;
const SAMPLE_SQL_OLD = sampleSql((column) => column);
const SAMPLE_SQL = sampleSql((column) => `baton_id_text(${column})`);

describe("the migration to the partitioned event store", () => {
  it("keeps every row of a populated old-layout store, each in its day's or hour's partition, and fills the hourly rollup", async () => {
    const database = await createScratchDatabase(getTestDatabaseUrl(), "migrate_partitioned");
    drops.push(database.drop);
    const oldLayout = createOldLayoutMigrationsDir();
    dirs.push(oldLayout);
    const appliedOld = await applyMigrations(database.url, oldLayout);
    expect(appliedOld).not.toContain(PARTITIONED_LAYOUT_MIGRATION);

    // Spread over the last SPAN_DAYS days (relative to now: any day the test runs), one in ten
    // a violation with who was inside, some with attributes and a lock.
    const nowMs = Date.now();
    await query(
      database.url,
      `insert into exclusivity_event (event_id, key, counter, service, worker, topic, subscription, partition, trace_id, observed_at, received_at, source, attributes, others_inside, lock)
       select 'mig-' || g, 'key-' || (g % 97), case when g % 10 = 0 then 1 + g % 3 else 0 end, 'svc-' || (g % 3), 'w-' || (g % 5),
         case when g % 4 = 0 then null else 'persistent://a/b/t' end, case when g % 4 = 0 then null else 'sub' end, case when g % 4 = 0 then null else g % 8 end,
         case when g % 2 = 0 then md5(g::text) end,
         $2::timestamptz - interval '1 millisecond' * floor(g::float8 / $1 * $3),
         $2::timestamptz, case when g % 7 = 0 then 'PULSAR_TOPIC' else 'HTTP' end::ingest_source,
         case when g % 5 = 0 then jsonb_build_object('attempt', g % 3) end,
         case when g % 10 = 0 then jsonb_build_array(jsonb_build_object('worker', 'w-x', 'enteredAt', g)) end,
         case when g % 11 = 0 then 'redis-main/lock:' || g end
       from generate_series(1, $1) g`,
      [EVENTS, new Date(nowMs).toISOString(), SPAN_DAYS * DAY],
    );
    // The per-minute rollup of those events, as ingest would have written it.
    await query(
      database.url,
      `insert into violation_minute (bucket, service, subscription, violations, events)
       select date_trunc('minute', observed_at, 'UTC'), service, coalesce(subscription, ''), count(*) filter (where counter > 0), count(*)
       from exclusivity_event group by 1, 2, 3`,
    );
    const countsBefore = await query<{ line: string }>(database.url, COUNTS_SQL);
    const sampleBefore = await query<{ row: string }>(database.url, SAMPLE_SQL_OLD, [EVENTS]);
    expect(countsBefore.length).toBeGreaterThanOrEqual(2 * SPAN_DAYS);
    expect(sampleBefore.length).toBe(Math.ceil(EVENTS / 37));

    // The partitioning comes first; later migrations (other tables) follow it.
    expect((await applyMigrations(database.url))[0]).toBe(PARTITIONED_LAYOUT_MIGRATION);

    expect(await query<{ line: string }>(database.url, COUNTS_SQL)).toEqual(countsBefore);
    expect(await query<{ row: string }>(database.url, SAMPLE_SQL, [EVENTS])).toEqual(sampleBefore);
    const [placement] = await query<{ total: string; in_default: string; misflagged: string; misplaced: string; partitions: string }>(
      database.url,
      `select count(*) as total,
         count(*) filter (where tableoid::regclass::text like '%\\_default') as in_default,
         count(*) filter (where is_violation <> (counter > 0)) as misflagged,
         count(*) filter (where tableoid::regclass::text <> case when counter > 0
           then 'exclusivity_event_violation_p' || to_char(observed_at at time zone 'UTC', 'YYYYMMDD')
           else 'exclusivity_event_other_p' || to_char(observed_at at time zone 'UTC', 'YYYYMMDDHH24') end) as misplaced,
         count(distinct tableoid) as partitions
       from exclusivity_event`,
    );
    expect(placement).toEqual({ total: String(EVENTS), in_default: "0", misflagged: "0", misplaced: "0", partitions: expect.any(String) });
    // SPAN_DAYS days of violations (11 calendar days at most), and the hours of the other events.
    expect(Number(placement!.partitions)).toBeGreaterThanOrEqual(SPAN_DAYS + 24 * SPAN_DAYS);
    const hours = await query<{ line: string }>(database.url, HOURS_SQL);
    expect(hours.length).toBeGreaterThanOrEqual(24 * SPAN_DAYS);
    expect(hours).toEqual(await query<{ line: string }>(database.url, MINUTES_PER_HOUR_SQL));
    const [old] = await query<{ name: string | null }>(database.url, "select to_regclass('exclusivity_event_unpartitioned')::text as name");
    expect(old!.name).toBeNull();
  });
});
