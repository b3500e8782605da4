// `npm run bench:event-store-load -- --database-url postgres://127.0.0.1:5432/baton_store --events 100000000 [--days 7 --violations 0.005 --layout partitioned|old]`
//
// Loads a stored history into a database for the at-scale figures (docs/event-store-at-scale.md):
// creates the database if missing, applies the migrations (--layout old: every migration before
// the partitioned layout), then COPYs `--events` counter events spread evenly over the last
// `--days` days (oldest first), `--violations` of them violations. As an operator loading a
// store would, it drops the secondary indexes and the primary key first and builds them after
// (one sorted build per index is much cheaper than maintaining them row by row), and then builds
// the per-minute and hourly rollups of the loaded rows, as ingest would have kept them. Prints the time
// taken by the COPY and by the index builds, and the bytes on disk per event (table plus indexes,
// every partition). The database is left in place for bench:ingest --stored-database-url and
// bench:event-store-reads; drop it when done (`drop database ... with (force)`).
import os from "node:os";
import { setImmediate as yieldToIo } from "node:timers/promises";
import { parseArgs } from "node:util";

import pg from "pg";

import { applyMigrations, MIGRATIONS_DIR } from "@/lib/db/migrate";
import { buildLoadedRollups } from "@/tests/bench/build-loaded-rollups";
import { copyFromStdin } from "@/lib/db/copy-from-stdin";
import { COPY_COLUMNS, makeStoredEvent, OLD_LAYOUT_COPY_COLUMNS, toCopyLine } from "@/tests/bench/event-generator";
import { describeEventStoreSize } from "@/tests/bench/event-store-size";
import { createOldLayoutMigrationsDir } from "@/tests/support/old-layout-migrations";
import { withDatabase } from "@/tests/support/test-database";

const { values: args } = parseArgs({
  options: {
    "database-url": { type: "string" },
    events: { type: "string", default: "1000000" },
    days: { type: "string", default: "7" },
    violations: { type: "string", default: "0.005" },
    layout: { type: "string", default: "partitioned" },
  },
});
const DAY_MS = 86_400_000;
const ROWS_PER_STATEMENT = 1_000_000;
const ROWS_PER_CHUNK = 5_000;

const started = performance.now();
const log = (line: string) => console.log(`[load ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`);
const fmt = (n: number) => n.toLocaleString("en-US");

async function ensureDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: withDatabase(url, "postgres") });
  await admin.connect();
  try {
    const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (exists.rowCount === 0) await admin.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

type IndexPlan = { drop: string[]; create: string[] };

/** The statements that drop the primary key and indexes of exclusivity_event, and re-create them. */
async function planIndexRebuild(client: pg.Client): Promise<IndexPlan> {
  const constraints = await client.query<{ name: string; definition: string }>(
    "select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = 'exclusivity_event'::regclass and contype in ('p', 'u') order by conname",
  );
  const indexes = await client.query<{ name: string; definition: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as definition from pg_index x join pg_class i on i.oid = x.indexrelid
     where x.indrelid = 'exclusivity_event'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid) order by i.relname`,
  );
  return {
    drop: [...constraints.rows.map((c) => `alter table exclusivity_event drop constraint "${c.name}"`), ...indexes.rows.map((i) => `drop index "${i.name}"`)],
    // pg_get_indexdef says "ON ONLY" for a partitioned table's index: without ONLY it is built on every partition.
    create: [
      ...constraints.rows.map((c) => `alter table exclusivity_event add constraint "${c.name}" ${c.definition}`),
      ...indexes.rows.map((i) => i.definition.replace(" ON ONLY ", " ON ")),
    ],
  };
}

async function main(): Promise<void> {
  const url = args["database-url"];
  if (!url) throw new Error("--database-url is required (e.g. postgres://postgres@127.0.0.1:5432/baton_store)");
  const events = Number(args.events);
  const days = Number(args.days);
  const violationShare = Number(args.violations);
  const layout = args.layout === "old" ? "old" : "partitioned";
  log(
    `${fmt(events)} events over ${days} days, ${(violationShare * 100).toFixed(2)}% violations, ${layout} layout, into ${new URL(url).pathname.slice(1)}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  await ensureDatabase(url);
  const migrationsDir = layout === "old" ? createOldLayoutMigrationsDir() : MIGRATIONS_DIR;
  log(`applied migrations: ${(await applyMigrations(url, migrationsDir)).length}`);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("set maintenance_work_mem = '1GB'");
    const nowMs = Date.now();
    const fromMs = nowMs - days * DAY_MS;
    if (layout === "partitioned") {
      const created = await client.query<{ n: number }>(
        "select baton_ensure_event_partitions(($1::timestamptz at time zone 'UTC')::date, ($2::timestamptz at time zone 'UTC')::date + 3) as n",
        [new Date(fromMs).toISOString(), new Date(nowMs).toISOString()],
      );
      log(`created ${created.rows[0]!.n} day partitions`);
    }
    const plan = await planIndexRebuild(client);
    for (const statement of plan.drop) await client.query(statement);
    log(`dropped ${plan.drop.length} indexes and constraints for the load`);

    const columns = layout === "partitioned" ? COPY_COLUMNS : OLD_LAYOUT_COPY_COLUMNS;
    const violationEvery = Math.max(1, Math.round(1 / violationShare));
    const stepMs = (days * DAY_MS) / events;
    const copyStarted = performance.now();
    let copied = 0;
    let pending: Promise<number> | null = null;
    for (let first = 0; first < events; first += ROWS_PER_STATEMENT) {
      const last = Math.min(events, first + ROWS_PER_STATEMENT);
      const chunks: Buffer[] = [];
      for (let from = first; from < last; from += ROWS_PER_CHUNK) {
        const lines: string[] = [];
        for (let n = from; n < Math.min(last, from + ROWS_PER_CHUNK); n++)
          lines.push(toCopyLine(makeStoredEvent(n, Math.floor(fromMs + n * stepMs), n % violationEvery === 0), layout));
        chunks.push(Buffer.from(`${lines.join("\n")}\n`));
        // Lets the previous statement's data flow to the server while this one is built.
        if (chunks.length % 20 === 0) await yieldToIo();
      }
      if (pending) copied += await pending;
      pending = copyFromStdin(client, `COPY exclusivity_event ${columns} FROM STDIN`, chunks);
      if ((first / ROWS_PER_STATEMENT) % 10 === 9)
        log(`${fmt(copied)} rows copied, ${fmt(Math.round(copied / ((performance.now() - copyStarted) / 1000)))} rows/s`);
    }
    if (pending) copied += await pending;
    const copySeconds = (performance.now() - copyStarted) / 1000;
    log(`COPY: ${fmt(copied)} rows in ${copySeconds.toFixed(0)} s (${fmt(Math.round(copied / copySeconds))} rows/s)`);

    const indexStarted = performance.now();
    for (const statement of plan.create) {
      const one = performance.now();
      await client.query(statement);
      log(`built in ${((performance.now() - one) / 1000).toFixed(0)} s: ${statement.slice(0, 110)}`);
    }
    const indexSeconds = (performance.now() - indexStarted) / 1000;
    await client.query("vacuum analyze exclusivity_event");
    const rollupStarted = performance.now();
    await buildLoadedRollups(client);
    const rollupSeconds = (performance.now() - rollupStarted) / 1000;
    log(`built the per-minute and hourly rollups of the loaded rows in ${rollupSeconds.toFixed(0)} s`);
    const size = await describeEventStoreSize(client);
    console.log("");
    console.log(`Loaded ${fmt(copied)} events (${layout} layout) over ${days} days`);
    console.log(
      `  COPY:          ${copySeconds.toFixed(0)} s (${fmt(Math.round(copied / copySeconds))} rows/s), indexes built after: ${indexSeconds.toFixed(0)} s, total ${(copySeconds + indexSeconds).toFixed(0)} s`,
    );
    console.log(`  on disk:       ${size.describe(copied)}`);
    console.log(
      `  machine:       ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    await client.end();
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    console.error("bench:event-store-load failed:", error);
    process.exit(1);
  });
