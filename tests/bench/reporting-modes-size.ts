// Benchmark: rows and bytes a day in each reporting mode of the exclusivity client, from the
// real row sizes. Samples are written through the real ingest paths (writeEvents for events,
// ingestCounts for per-minute counts) into a throwaway migrated PostgreSQL; each table's size
// (heap, TOAST and every index: pg_total_relation_size, over every partition) divided by its rows gives the bytes a
// row costs on disk, and pg_column_size the bytes of the row itself.
//
// The fleet: RATE increments a second in all, VIOLATION_SHARE of them violations (each naming
// one other worker inside), reported by PODS client instances, each counting GROUPS_PER_POD
// (subscription, topic) groups per minute.
//
// Run: node --conditions=react-server --import tsx tests/bench/reporting-modes-size.ts [--sample 100000]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import pg from "pg";

import { createDb } from "@/lib/db/client";
import type { CountsInput } from "@/lib/ingest/counts/counts-schema";
import { ingestCounts } from "@/lib/ingest/counts/ingest-counts";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import type { ValidEvent } from "@/lib/ingest/types";
import { writeEvents } from "@/lib/ingest/write-events";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { sample: { type: "string", default: "100000" } } });
const SAMPLE = Number(values.sample);
const RATE = 7_000;
const VIOLATION_SHARE = 0.005;
const PODS = 24;
const GROUPS_PER_POD = 2;
const DAY_S = 86_400;
const BATCH = 1_000;
const MINUTE = 60_000;

type TableSize = { rows: number; totalBytes: number; rowBytes: number };

async function measure(client: pg.Client, table: "exclusivity_event" | "exclusivity_count" | "violation_minute"): Promise<TableSize> {
  await client.query(`vacuum analyze ${table}`);
  const { rows } = await client.query<{ rows: string; total: string; row_bytes: string }>(
    // Summed over the partition tree: a partitioned table (exclusivity_event) has no storage of its own.
    `select count(*) as rows,
       (select sum(pg_total_relation_size(relid)) from (select relid from pg_partition_tree('${table}') union select '${table}'::regclass) tree) as total,
       avg(pg_column_size(t.*)) as row_bytes
     from ${table} t`,
  );
  return { rows: Number(rows[0]!.rows), totalBytes: Number(rows[0]!.total), rowBytes: Number(rows[0]!.row_bytes) };
}

/** An event as the client library sends it, with realistic names; violations name one other worker. */
function sampleEvent(i: number, isViolation: boolean, nowMs: number): ValidEvent {
  const observedAtMs = nowMs - 3_600_000 + Math.floor((i / SAMPLE) * 3_600_000);
  const pod = i % PODS;
  return {
    eventId: randomUUID(),
    key: `order-${(i * 7_919) % 5_000_000}`,
    counter: isViolation ? 1 : 0,
    service: "orders",
    worker: `orders-7f9c4d-${pod.toString(36).padStart(5, "x")}`,
    topic: `persistent://acme/orders/events-partition-${pod % 16}`,
    subscription: "orders-sub",
    partition: pod % 16,
    traceId: randomUUID().replaceAll("-", ""),
    observedAtMs,
    attributesJson: null,
    othersInsideJson: isViolation
      ? JSON.stringify([{ worker: `orders-7f9c4d-${((pod + 1) % PODS).toString(36).padStart(5, "x")}`, enteredAt: observedAtMs - 850 }])
      : null,
    lock: null,
  };
}

async function writeSample(pool: pg.Pool, count: number, isViolation: (i: number) => boolean): Promise<number> {
  const nowMs = Date.now();
  let jsonBytes = 0;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => sampleEvent(start + k, isViolation(start + k), nowMs));
    jsonBytes += batch.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(toWire(e))), 0);
    await writeEvents(pool, batch, "HTTP");
  }
  return jsonBytes / count;
}

/** The event as the client POSTs it (for the bytes on the wire). */
function toWire(e: ValidEvent): Record<string, unknown> {
  return {
    id: e.eventId,
    key: e.key,
    counter: e.counter,
    service: e.service,
    worker: e.worker,
    topic: e.topic,
    subscription: e.subscription,
    partition: e.partition,
    traceId: e.traceId,
    observedAt: e.observedAtMs,
    ...(e.othersInsideJson ? { othersInside: JSON.parse(e.othersInsideJson) as unknown } : {}),
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e9 ? 3 : 1)} GB`;

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const pool = createIngestPool(database.url);
  const db = createDb(database.url);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    // 1. "all" mode: every increment is an event, 0.5% of them violations.
    const every = Math.round(1 / VIOLATION_SHARE);
    const allJson = await writeSample(pool, SAMPLE, (i) => i % every === 0);
    const all = await measure(client, "exclusivity_event");
    const allRollup = await measure(client, "violation_minute");
    await client.query("truncate exclusivity_event, violation_minute");

    // 2. "violations+counts": only violations are events (each naming who was inside)...
    const violationJson = await writeSample(pool, SAMPLE, () => true);
    const violations = await measure(client, "exclusivity_event");

    // ...and per-minute counts: one row per client, minute and group.
    const countNowMs = Math.floor(Date.now() / MINUTE) * MINUTE;
    const minutes = Math.ceil(SAMPLE / (PODS * GROUPS_PER_POD));
    let countsJson = 0;
    for (let pod = 0; pod < PODS; pod++) {
      const clientId = randomUUID();
      for (let m = 0; m < minutes; m++) {
        const body: CountsInput = {
          clientId,
          service: "orders",
          worker: `orders-7f9c4d-${pod.toString(36).padStart(5, "x")}`,
          mode: "violations+counts",
          minute: countNowMs - (m + 1) * MINUTE,
          counts: Array.from({ length: GROUPS_PER_POD }, (_, g) => ({
            subscription: "orders-sub",
            topic: `persistent://acme/orders/events-partition-${(pod + g * PODS) % 16}`,
            increments: 290,
          })),
        };
        countsJson += Buffer.byteLength(JSON.stringify({ ...body, minute: new Date(body.minute).toISOString() }));
        await ingestCounts(db, body);
      }
    }
    const counts = await measure(client, "exclusivity_count");
    const countBodies = PODS * minutes;

    const perDay = RATE * DAY_S;
    const violationsPerDay = perDay * VIOLATION_SHARE;
    const countRowsPerDay = PODS * GROUPS_PER_POD * 1_440;
    const countBodiesPerDay = PODS * 1_440;
    const rollupRowsPerDay = (allRollup.rows / 60) * 1_440; // the sample spans one hour
    const allPerRow = all.totalBytes / all.rows;
    const violationPerRow = violations.totalBytes / violations.rows;
    const countPerRow = counts.totalBytes / counts.rows;

    console.log(`sample: ${fmt(SAMPLE)} events per mode, ${fmt(counts.rows)} count rows (${PODS} pods x ${GROUPS_PER_POD} groups x ${fmt(minutes)} minutes)`);
    console.log(
      `row sizes (pg_column_size): event ${all.rowBytes.toFixed(0)} B (a violation with othersInside ${violations.rowBytes.toFixed(0)} B), count row ${counts.rowBytes.toFixed(0)} B`,
    );
    console.log(
      `on disk per row (table + indexes): event in "all" ${allPerRow.toFixed(0)} B, violation event ${violationPerRow.toFixed(0)} B, count row ${countPerRow.toFixed(0)} B`,
    );
    console.log(
      `wire per item (JSON): event ${allJson.toFixed(0)} B, violation event ${violationJson.toFixed(0)} B, counts body ${(countsJson / countBodies).toFixed(0)} B`,
    );
    console.log(`at ${fmt(RATE)} increments/s (${fmt(perDay)} a day), ${VIOLATION_SHARE * 100}% violations, ${PODS} pods:`);
    console.log(`  "all":               ${fmt(perDay)} event rows/day, ${gb(perDay * allPerRow)}/day on disk; ${gb(perDay * allJson)}/day of request bodies`);
    console.log(
      `  "violations+counts": ${fmt(violationsPerDay)} event rows + ${fmt(countRowsPerDay)} count rows/day = ${fmt(violationsPerDay + countRowsPerDay)} rows/day, ` +
        `${gb(violationsPerDay * violationPerRow + countRowsPerDay * countPerRow)}/day on disk; ${gb(violationsPerDay * violationJson + countBodiesPerDay * (countsJson / countBodies))}/day of request bodies`,
    );
    console.log(`  both: about ${fmt(rollupRowsPerDay)} violation_minute rows/day (per minute, service and subscription)`);
  } finally {
    await client.end();
    await pool.end();
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
