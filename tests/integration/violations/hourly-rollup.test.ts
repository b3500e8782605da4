import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDb, type Db } from "@/lib/db/client";
import { applyMigrations } from "@/lib/db/migrate";
import { ingestCounts } from "@/lib/ingest/counts/ingest-counts";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { scopeOf } from "@/lib/violations/queries/get-violation-timeline";
import { readIncrementRows } from "@/lib/violations/queries/read-increment-rows";
import { readViolationRows, wallClockBinning } from "@/lib/violations/queries/read-violation-rows";
import { chooseRollupResolution } from "@/lib/violations/queries/rollup-rows-sql";
import { chooseBucketMs } from "@/lib/violations/time-buckets";
import { offsetSpans } from "@/lib/violations/time-zone";
import { createDeployment, MINUTE, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The chart reads the hourly rollup when its buckets are whole hours and the per-minute one
// otherwise: on the same data (a week of events and counts, deployments whose windows start and
// end within an hour, a range cut mid-hour), both paths give the same violations, inside and
// outside deployments, and the same increments, bin by bin. A database of its own, so that no
// other test writes between the two reads. Instants are relative to the clock (any day).

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let database: { url: string; drop(): Promise<void> };
let db: Db;
let pool: pg.Pool;
const nowMs = Date.now();

beforeAll(async () => {
  database = await createScratchDatabase(getTestDatabaseUrl(), "hourly_rollup");
  await applyMigrations(database.url);
  db = createDb(database.url);
  pool = createIngestPool(database.url);
  // A deterministic spread over the last 7 days: three services, two subscriptions, a violation
  // every seventh event, at minutes that fall anywhere in their hour.
  const events = Array.from({ length: 3_000 }, (_, i) => ({
    service: `svc-${i % 3}`,
    subscription: i % 2 === 0 ? "sub-a" : null,
    key: `k-${i % 50}`,
    counter: i % 7 === 0 ? 1 : 0,
    observedAtMs: nowMs - 7 * DAY + Math.floor(((i * 7_919) % 3_000) * ((7 * DAY) / 3_000)) + (i % 13) * 1_000,
  }));
  await writeTestEvents(pool, events);
  await ingestCounts(db, {
    clientId: "c-1",
    service: "svc-1",
    worker: "w-1",
    mode: "violations+counts",
    minute: Math.floor((nowMs - 2 * DAY) / MINUTE) * MINUTE + 17 * MINUTE,
    counts: [{ subscription: "sub-a", increments: 40 }],
  });
  // Windows starting and ending within an hour, one on the hour, one open.
  await createDeployment(db, { service: "svc-0", startedAtMs: nowMs - 5 * DAY + 17 * MINUTE + 5_000, finishedAtMs: nowMs - 5 * DAY + 95 * MINUTE });
  await createDeployment(db, {
    service: "svc-1",
    startedAtMs: Math.floor((nowMs - 3 * DAY) / HOUR) * HOUR,
    finishedAtMs: Math.floor((nowMs - 3 * DAY) / HOUR) * HOUR + 2 * HOUR,
  });
  await createDeployment(db, { service: "svc-2", startedAtMs: nowMs - DAY - 7 * MINUTE, finishedAtMs: null });
});

afterAll(async () => {
  await Promise.all([db?.$disconnect(), pool?.end()]);
  await database?.drop();
});

const byBin = <T extends { binStart: number }>(rows: T[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("the hourly rollup", () => {
  it("holds each hour's sum of the per-minute rollup", async () => {
    const perHour = await pool.query(
      "select date_trunc('hour', bucket, 'UTC') as bucket, service, subscription, sum(violations)::int as violations, sum(events)::int as events from violation_minute group by 1, 2, 3 order by 1, 2, 3",
    );
    const hours = await pool.query("select bucket, service, subscription, violations, events from violation_hour order by 1, 2, 3");
    expect(hours.rows.length).toBeGreaterThan(3 * 100);
    expect(hours.rows).toEqual(perHour.rows);
  });

  it.each([
    ["UTC", 0],
    ["Europe/Berlin", 0],
    ["America/New_York", 0],
    ["UTC", 3 * HOUR],
  ])("gives a 7-day chart the same rows from hours as from minutes (%s, bucket %d ms or chosen)", async (timeZone, bucket) => {
    const query = { fromMs: nowMs - 7 * DAY, toMs: nowMs, timeZone, service: null, subscription: null, environment: null, graceMs: 2 * MINUTE, nowMs };
    const scope = scopeOf(query, nowMs);
    const bucketMs = bucket || chooseBucketMs(query.toMs - query.fromMs);
    const binning = wallClockBinning(bucketMs, offsetSpans(timeZone, scope.startMs, scope.endMs));
    expect(chooseRollupResolution(scope, binning)).toBe("hour");
    const fromHours = await readViolationRows(db, scope, binning, "hour");
    const fromMinutes = await readViolationRows(db, scope, binning, "minute");
    expect(fromMinutes.reduce((sum, row) => sum + row.inside, 0)).toBeGreaterThan(0);
    expect(fromMinutes.reduce((sum, row) => sum + row.violations - row.inside, 0)).toBeGreaterThan(0);
    expect(byBin(fromHours)).toEqual(byBin(fromMinutes));
    expect(byBin(await readIncrementRows(db, scope, binning, "hour"))).toEqual(byBin(await readIncrementRows(db, scope, binning, "minute")));
    // A service's scope too.
    const oneService = { ...scope, service: "svc-0", subscription: "sub-a" };
    expect(byBin(await readViolationRows(db, oneService, binning, "hour"))).toEqual(byBin(await readViolationRows(db, oneService, binning, "minute")));
  });

  it("reads minutes when the buckets are not whole UTC hours", () => {
    const scope = scopeOf(
      { fromMs: nowMs - 7 * DAY, toMs: nowMs, timeZone: "UTC", service: null, subscription: null, environment: null, graceMs: 0, nowMs },
      nowMs,
    );
    expect(chooseRollupResolution(scope, wallClockBinning(HOUR, offsetSpans("UTC", scope.startMs, scope.endMs)))).toBe("hour");
    expect(chooseRollupResolution(scope, wallClockBinning(HOUR, offsetSpans("Asia/Kathmandu", scope.startMs, scope.endMs)))).toBe("minute");
    expect(chooseRollupResolution(scope, wallClockBinning(30 * MINUTE, offsetSpans("UTC", scope.startMs, scope.endMs)))).toBe("minute");
  });
});
