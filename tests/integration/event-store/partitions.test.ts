import { randomUUID } from "node:crypto";

import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDb, type Db } from "@/lib/db/client";
import { applyMigrations } from "@/lib/db/migrate";
import { ingestEvents } from "@/lib/ingest/ingest-events";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import type { ValidEvent } from "@/lib/ingest/types";
import { writeEvents } from "@/lib/ingest/write-events";
import { ensureEventPartitions, PARTITION_DAYS_AHEAD, utcDay } from "@/lib/retention/ensure-event-partitions";
import { runRetention } from "@/lib/retention/run-retention";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The partitioned event store on a database of its own (creating and dropping partitions would
// touch other tests' rows): hour partitions of events and day partitions of violations created
// ahead by the clock, an event of a time without a partition kept in the DEFAULT partition and
// moved once its hour or day exists, expired hours and days dropped with violations kept longer,
// and idempotency across an hour's and a day's boundary. Every instant is relative to the clock,
// so the test passes on any day (and under faketime).

const HOUR = 3_600_000;
const DAY = 86_400_000;
let database: { url: string; drop(): Promise<void> };
let db: Db;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createScratchDatabase(getTestDatabaseUrl(), "event_store");
  await applyMigrations(database.url);
  db = createDb(database.url);
  pool = createIngestPool(database.url);
});

afterAll(async () => {
  await Promise.all([db?.$disconnect(), pool?.end()]);
  await database?.drop();
});

function event(overrides: Partial<ValidEvent> & Pick<ValidEvent, "observedAtMs">): ValidEvent {
  return {
    eventId: randomUUID(),
    key: "k-1",
    counter: 0,
    service: "svc",
    worker: "w-1",
    topic: null,
    subscription: null,
    partition: null,
    traceId: null,
    attributesJson: null,
    othersInsideJson: null,
    lock: null,
    ...overrides,
  };
}

/** The partition holding each event id. */
async function placements(ids: string[]): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ event_id: string; partition: string }>(
    "select baton_id_text(event_id) as event_id, tableoid::regclass::text as partition from exclusivity_event where baton_id_text(event_id) = any($1)",
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.event_id, r.partition]));
}

async function timePartitions(): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    "select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent in ('exclusivity_event_violation'::regclass, 'exclusivity_event_other'::regclass) order by 1",
  );
  return rows.map((r) => r.name);
}

/** A day partition's suffix (YYYYMMDD), and an hour partition's (YYYYMMDDHH). */
const compact = (ms: number) => utcDay(ms).replaceAll("-", "");
const compactHour = (ms: number) => new Date(ms).toISOString().slice(0, 13).replaceAll("-", "").replace("T", "");

describe("the partitioned event store", () => {
  it("creates the hour partitions of events and the day partitions of violations from yesterday to a few days ahead of the clock, once", async () => {
    const later = Date.now() + 10 * DAY;
    const created = await ensureEventPartitions(db, later);
    // Yesterday through PARTITION_DAYS_AHEAD days ahead: a day of violations and 24 hours of
    // other events per day; none existed that far out.
    expect(created).toBe((PARTITION_DAYS_AHEAD + 2) * (1 + 24));
    const names = await timePartitions();
    const yesterdayStart = Date.parse(`${utcDay(later - DAY)}T00:00:00Z`);
    const lastDayStart = Date.parse(`${utcDay(later + PARTITION_DAYS_AHEAD * DAY)}T00:00:00Z`);
    for (const offset of [-1, 0, PARTITION_DAYS_AHEAD]) expect(names).toContain(`exclusivity_event_violation_p${compact(later + offset * DAY)}`);
    for (const at of [yesterdayStart, later, lastDayStart + 23 * HOUR]) expect(names).toContain(`exclusivity_event_other_p${compactHour(at)}`);
    expect(names).not.toContain(`exclusivity_event_other_p${compactHour(yesterdayStart - HOUR)}`);
    expect(names).not.toContain(`exclusivity_event_other_p${compactHour(lastDayStart + DAY)}`);
    expect(names).not.toContain(`exclusivity_event_violation_p${compact(later + (PARTITION_DAYS_AHEAD + 1) * DAY)}`);
    expect(await ensureEventPartitions(db, later)).toBe(0);
  });

  it("keeps an event of a time without a partition in the DEFAULT partition, and moves it into its hour's or day's once created", async () => {
    const farMs = Date.now() + 30 * DAY;
    const other = event({ observedAtMs: farMs });
    const violation = event({ observedAtMs: farMs + 1, counter: 1 });
    expect(await writeEvents(pool, [other, violation], "HTTP")).toBe(2);
    expect(await placements([other.eventId, violation.eventId])).toEqual({
      [other.eventId]: "exclusivity_event_other_default",
      [violation.eventId]: "exclusivity_event_violation_default",
    });

    await ensureEventPartitions(db, farMs);
    expect(await placements([other.eventId, violation.eventId])).toEqual({
      [other.eventId]: `exclusivity_event_other_p${compactHour(farMs)}`,
      [violation.eventId]: `exclusivity_event_violation_p${compact(farMs + 1)}`,
    });
    const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from exclusivity_event where baton_id_text(event_id) = any($1)", [
      [other.eventId, violation.eventId],
    ]);
    expect(rows[0]!.n).toBe(2);
  });

  it("drops the hour and day partitions past their retention, keeping violations longer, and keeps the rollups", async () => {
    const nowMs = Date.now();
    // 41 days of hour and day partitions at once (about a thousand tables): more than the ingest
    // pool's 30 s statement bound allows on a loaded machine, and no ingest ever asks for that many.
    const setup = await pool.connect();
    try {
      await setup.query("set statement_timeout = 0");
      await setup.query("select baton_ensure_event_partitions($1::date, $2::date)", [utcDay(nowMs - 40 * DAY), utcDay(nowMs)]);
    } finally {
      await setup.query("reset statement_timeout");
      setup.release();
    }
    const ages = [35, 20, 2];
    const events = [
      ...ages.flatMap((age) => [
        event({ observedAtMs: nowMs - age * DAY, service: "retained" }),
        event({ observedAtMs: nowMs - age * DAY, counter: 1, service: "retained" }),
      ]),
      // Either side of the 7-day cutoff, by the hour: the hour that ended before it goes, the one after stays.
      event({ observedAtMs: nowMs - 7 * DAY - 2 * HOUR, service: "retained" }),
      event({ observedAtMs: nowMs - 7 * DAY + HOUR, service: "retained" }),
    ];
    expect(await writeEvents(pool, events, "HTTP")).toBe(events.length);
    const rollupSql = (table: string) => `select sum(events)::int as events, sum(violations)::int as violations from ${table} where service = 'retained'`;
    const rollupBefore = await pool.query(rollupSql("violation_minute"));
    expect((await pool.query(rollupSql("violation_hour"))).rows).toEqual(rollupBefore.rows);

    // A run stopped between detaching a partition and dropping it left one detached: dropped too.
    const leftDetached = `exclusivity_event_other_p${compactHour(nowMs - 30 * DAY)}`;
    await pool.query(`alter table exclusivity_event_other detach partition "${leftDetached}"`);

    const result = await runRetention(db, { retentionDays: 7, violationRetentionDays: 30, retentionBatchSize: 1_000 }, new AbortController().signal, {
      nowMs,
      pauseMs: 0,
    });
    expect(result.droppedPartitions).toContain(leftDetached);
    expect((await pool.query("select to_regclass($1)::text as name", [leftDetached])).rows).toEqual([{ name: null }]);
    // Dropped four lists at a time: every table named is gone, whichever list it was in.
    const stillThere = await pool.query("select relname from pg_class where relname = any($1)", [result.droppedPartitions]);
    expect(result.droppedPartitions.length).toBeGreaterThan(4 * 32);
    expect(stillThere.rows).toEqual([]);

    // Other events: the hours of 35 and 20 days ago and the one that ended before the cutoff
    // went, every hour of those days too; violations: only the day of 35 days ago.
    expect(result.droppedPartitions).toContain(`exclusivity_event_other_p${compactHour(nowMs - 35 * DAY)}`);
    expect(result.droppedPartitions).toContain(`exclusivity_event_other_p${compactHour(nowMs - 20 * DAY)}`);
    expect(result.droppedPartitions).toContain(`exclusivity_event_other_p${compactHour(nowMs - 7 * DAY - 2 * HOUR)}`);
    expect(result.droppedPartitions.filter((name) => name.startsWith(`exclusivity_event_other_p${compact(nowMs - 20 * DAY)}`))).toHaveLength(24);
    expect(result.droppedPartitions).not.toContain(`exclusivity_event_other_p${compactHour(nowMs - 7 * DAY + HOUR)}`);
    expect(result.droppedPartitions).toContain(`exclusivity_event_violation_p${compact(nowMs - 35 * DAY)}`);
    expect(result.droppedPartitions).not.toContain(`exclusivity_event_violation_p${compact(nowMs - 20 * DAY)}`);
    expect(result.droppedPartitions.every((name) => !name.includes(`_p${compact(nowMs - 2 * DAY)}`) && !name.includes(`_p${compact(nowMs - 6 * DAY)}`))).toBe(
      true,
    );
    const left = await pool.query<{ age: number; counter: number }>(
      "select round(extract(epoch from ($1::timestamptz - observed_at)) / 86400)::int as age, counter from exclusivity_event where service = 'retained' order by 1 desc, 2",
      [new Date(nowMs).toISOString()],
    );
    expect(left.rows).toEqual([
      { age: 20, counter: 1 },
      { age: 7, counter: 0 },
      { age: 2, counter: 0 },
      { age: 2, counter: 1 },
    ]);
    expect((await pool.query(rollupSql("violation_minute"))).rows).toEqual(rollupBefore.rows);
    expect((await pool.query(rollupSql("violation_hour"))).rows).toEqual(rollupBefore.rows);
    // Nothing left to drop: a second run drops nothing.
    expect(
      (await runRetention(db, { retentionDays: 7, violationRetentionDays: 30, retentionBatchSize: 1_000 }, new AbortController().signal, { nowMs, pauseMs: 0 }))
        .droppedPartitions,
    ).toEqual([]);
  });

  it("writes nothing new when a batch that straddles midnight and another hour's boundary is sent again, in any partition", async () => {
    const nowMs = Date.now();
    await ensureEventPartitions(db, nowMs);
    const midnight = Date.parse(`${utcDay(nowMs)}T00:00:00Z`);
    // Across midnight (a day's and an hour's boundary) with violations and other events, and
    // across 01:00 (an hour's boundary only) with other events: at most a day ahead of now.
    const instants = [
      ...[-1_500, -1, 0, 1, 1_500].map((offset, i) => ({ at: midnight + offset, counter: i % 2 })),
      ...[-1, 0].map((offset) => ({ at: midnight + HOUR + offset, counter: 0 })),
    ];
    const items = instants.map(({ at, counter }, i) => ({
      id: `midnight-${i}-${randomUUID()}`,
      key: "k-midnight",
      counter,
      service: "midnight",
      worker: "w-1",
      observedAt: new Date(at).toISOString(),
    }));
    const rules = { retentionDays: 7, violationRetentionDays: 30 };
    expect(await ingestEvents(pool, items, "HTTP", rules)).toEqual({ accepted: 7, duplicates: 0, rejected: [] });
    const where = await placements(items.map((i) => i.id));
    expect(new Set(Object.values(where))).toEqual(
      new Set([
        `exclusivity_event_other_p${compactHour(midnight - HOUR)}`,
        `exclusivity_event_violation_p${compact(midnight - DAY)}`,
        `exclusivity_event_other_p${compactHour(midnight)}`,
        `exclusivity_event_violation_p${compact(midnight)}`,
        `exclusivity_event_other_p${compactHour(midnight + HOUR)}`,
      ]),
    );

    expect(await ingestEvents(pool, items, "HTTP", rules)).toEqual({ accepted: 0, duplicates: 7, rejected: [] });
    for (const table of ["violation_minute", "violation_hour"]) {
      const { rows } = await pool.query<{ events: number; violations: number }>(
        `select sum(events)::int as events, sum(violations)::int as violations from ${table} where service = 'midnight'`,
      );
      expect(rows[0]).toEqual({ events: 7, violations: 2 });
    }

    // What is not deduplicated: the same id at another time is another event.
    const moved = { ...items[0]!, observedAt: new Date(midnight - 1_499).toISOString() };
    expect(await ingestEvents(pool, [moved], "HTTP", rules)).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
  });

  it("accepts a violation older than the events' retention but within its own, and refuses what retention would drop at once or lies too far ahead", async () => {
    const nowMs = Date.now();
    const rules = { retentionDays: 7, violationRetentionDays: 30 };
    const item = (id: string, counter: number, atMs: number) => ({
      id: `${id}-${randomUUID()}`,
      key: "k-old",
      counter,
      service: "old",
      worker: "w-1",
      observedAt: new Date(atMs).toISOString(),
    });
    const result = await ingestEvents(
      pool,
      [
        item("violation-20d", 1, nowMs - 20 * DAY),
        item("event-20d", 0, nowMs - 20 * DAY),
        item("violation-40d", 1, nowMs - 40 * DAY),
        item("ahead-2d", 0, nowMs + 2 * DAY),
      ],
      "HTTP",
      rules,
    );
    expect(result.accepted).toBe(1);
    expect(result.rejected).toEqual([
      { index: 1, field: "observedAt", message: expect.stringContaining("7-day retention of events (BATON_RETENTION_DAYS)") },
      { index: 2, field: "observedAt", message: expect.stringContaining("30-day retention of violations (BATON_VIOLATION_RETENTION_DAYS)") },
      { index: 3, field: "observedAt", message: expect.stringContaining("in the future") },
    ]);
  });
});
