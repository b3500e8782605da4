// `npm run bench:violations [-- --runs 7 --events 10000000 --keep]`
//
// The violations reads at scale: 10 million counter events over 30 days and 2,000 deployments
// (tests/bench/violations-dataset.ts), in a throwaway embedded PostgreSQL, or in the database
// named by BATON_BENCH_DATABASE_URL (a scratch database on this machine: it is emptied and
// refilled unless it already holds this exact dataset, so `--keep` plus that variable lets a
// second run skip the generation).
//
// Measured, as server time (the lib function a route handler calls: SQL plus the shaping in
// Node), each after three warm-up runs, median and range over --runs:
//   1. the violations chart (getViolationTimeline) for 7 and 30 days, against the targets
//      (200 ms and 400 ms), and the plain-SQL baseline for the same question: a GROUP BY over
//      the raw events classifying each violation with an EXISTS over deployments;
//   2. the key drill-down (getKeyDrilldown) for a typical key and the busiest key, 24 hours and
//      7 days (target 100 ms), and its plain-SQL baseline: the key's events with correlated
//      subqueries for leader changes and deployments around each;
//   3. the top keys and workers (raw violations, through the partial index) for 24 hours, 7 and
//      30 days.
import os from "node:os";
import { parseArgs } from "node:util";

import pg from "pg";

import { createDb, type Db } from "@/lib/db/client";
import { getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { getTopViolations } from "@/lib/violations/queries/get-top-violations";
import { getViolationTimeline } from "@/lib/violations/queries/get-violation-timeline";
import { chooseBucketMs } from "@/lib/violations/time-buckets";
import { describeShape, generateDataset, readStoredShape, type DatasetShape } from "@/tests/bench/violations-dataset";
import { assertLocalDatabaseUrl, startTestDatabase } from "@/tests/support/test-database";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    events: { type: "string", default: "10000000" },
    keep: { type: "boolean", default: false },
    "baseline-timeout": { type: "string", default: "120" },
  },
});
const RUNS = Number(args.runs);
const BASELINE_TIMEOUT_S = Number(args["baseline-timeout"]);
const DAY = 86_400_000;
const GRACE_MS = 5 * 60_000;
const WINDOW_MS = 2 * 60_000;
const SHAPE: DatasetShape = {
  events: Number(args.events),
  days: 30,
  deployments: 2_000,
  services: 10,
  subscriptionsPerService: 2,
  keys: 500_000,
  changesPerPartition: 100,
};
// A fixed end, so that a kept dataset is the same dataset: the queries run "as of" this instant.
const END_MS = Date.parse("2026-11-22T12:00:00Z");

const benchStarted = performance.now();
const log = (line: string) => console.log(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}`);

type Timing = { label: string; medianMs: number; minMs: number; maxMs: number; targetMs?: number };

/** Warm-up runs before the measured ones: V8 compiles the shaping code and PostgreSQL fills its cache. */
const WARM_UP_RUNS = 3;

async function measure(label: string, run: () => Promise<unknown>, targetMs?: number): Promise<Timing> {
  for (let i = 0; i < WARM_UP_RUNS; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const timing = { label, medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]!, maxMs: times[times.length - 1]!, targetMs };
  log(
    `${label}: median ${timing.medianMs.toFixed(0)} ms (min ${timing.minMs.toFixed(0)}, max ${timing.maxMs.toFixed(0)})${targetMs ? ` target < ${targetMs} ms` : ""}`,
  );
  return timing;
}

/** One run of a plain-SQL statement, with a time limit: a baseline, not a loop. */
async function baseline(url: string, label: string, sql: string, values: unknown[]): Promise<Timing> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`set statement_timeout = ${BASELINE_TIMEOUT_S * 1000}`);
    await client.query("set jit = off");
    const started = performance.now();
    try {
      await client.query(sql, values);
    } catch (error) {
      if ((error as { code?: string }).code !== "57014") throw error;
      log(`${label}: cancelled after ${BASELINE_TIMEOUT_S} s`);
      return { label, medianMs: Number.POSITIVE_INFINITY, minMs: Number.POSITIVE_INFINITY, maxMs: Number.POSITIVE_INFINITY };
    }
    const ms = performance.now() - started;
    log(`${label}: ${ms.toFixed(0)} ms (one run)`);
    return { label, medianMs: ms, minMs: ms, maxMs: ms };
  } finally {
    await client.end();
  }
}

/** The chart's question in plain SQL over raw events: violations per bucket and service, inside or outside a deployment of the service. */
const CHART_BASELINE_SQL = `
  select date_bin($3::interval, e.observed_at, '2000-01-01T00:00:00Z') as bucket, e.service,
    count(*) filter (where e.counter > 0) as violations,
    count(*) filter (where e.counter > 0 and exists (
      select 1 from deployment d
      where d.service = e.service and e.observed_at >= date_trunc('minute', d.started_at)
        and e.observed_at < date_trunc('minute', greatest(d.started_at, coalesce(d.finished_at, least($2::timestamptz, d.started_at + interval '1 day'))) + interval '5 minutes') + interval '1 minute')) as inside
  from exclusivity_event e
  where e.observed_at >= $1 and e.observed_at < $2
  group by 1, 2`;

/** The drill-down's question in plain SQL: the key's events, each with the leader changes and deployments around it. */
const DRILLDOWN_BASELINE_SQL = `
  select baton_id_text(e.event_id) as event_id, e.worker, e.counter, e.observed_at, baton_id_text(e.trace_id) as trace_id,
    (select json_agg(h.id) from holder_change h join held_resource r on r.id = h.resource_id
      where r.topic = regexp_replace(e.topic, '-partition-[0-9]+$', '') and r.subscription = e.subscription
        and h.new_seen_at >= e.observed_at - interval '2 minutes' and coalesce(h.old_seen_at, h.new_seen_at) <= e.observed_at + interval '2 minutes') as changes,
    (select json_agg(d.id) from deployment d
      where d.started_at <= e.observed_at + interval '2 minutes' and coalesce(d.finished_at, $4::timestamptz) + interval '5 minutes' >= e.observed_at - interval '2 minutes') as deployments
  from exclusivity_event e
  where e.key = $1 and e.observed_at >= $2 and e.observed_at < $3
  order by e.observed_at`;

async function prepareDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  const given = process.env.BATON_BENCH_DATABASE_URL;
  if (given) {
    assertLocalDatabaseUrl(given);
    return { url: given, stop: async () => undefined };
  }
  log("starting a throwaway PostgreSQL (embedded, migrated)...");
  const database = await startTestDatabase();
  return { url: database.url, stop: args.keep ? async () => log(`kept: ${database.url} (stop it by hand)`) : database.stop };
}

async function keyWithEvents(db: Db, which: "typical" | "busiest"): Promise<{ key: string; events30d: number }> {
  const rows = await db.$queryRawUnsafe<{ key: string; n: number }[]>(
    which === "busiest"
      ? "select key, count(*)::int as n from exclusivity_event where key in ('user-0', 'user-1', 'user-2') group by key order by n desc limit 1"
      : "select key, count(*)::int as n from exclusivity_event where key in (select 'user-' || (250000 + g) from generate_series(0, 200) g) group by key order by n limit 1 offset 100",
  );
  return { key: rows[0]!.key, events30d: rows[0]!.n };
}

async function main(): Promise<void> {
  const database = await prepareDatabase();
  const db = createDb(database.url);
  const results: Timing[] = [];
  try {
    if ((await readStoredShape(database.url)) === describeShape(SHAPE, END_MS)) {
      log("the database already holds this dataset: reusing it");
    } else {
      log(
        `generating ${SHAPE.events.toLocaleString("en-US")} events over ${SHAPE.days} days, ${SHAPE.deployments} deployments, ${SHAPE.services} services x ${SHAPE.subscriptionsPerService} subscriptions x 8 partitions`,
      );
      await generateDataset(database.url, SHAPE, END_MS, log);
    }
    const [counts] = await db.$queryRawUnsafe<{ rollup: number; violations: number }[]>(
      "select (select count(*)::int from violation_minute) as rollup, (select coalesce(sum(violations), 0)::int from violation_minute) as violations",
    );
    log(`rollup rows: ${counts!.rollup.toLocaleString("en-US")}; violations: ${counts!.violations.toLocaleString("en-US")}`);

    const chart = (days: number) => () =>
      getViolationTimeline(db, {
        fromMs: END_MS - days * DAY,
        toMs: END_MS,
        timeZone: "UTC",
        service: null,
        subscription: null,
        environment: null,
        graceMs: GRACE_MS,
        nowMs: END_MS,
      });
    results.push(await measure("chart, 7 days (168 one-hour buckets)", chart(7), 200));
    results.push(await measure("chart, 30 days (240 three-hour buckets)", chart(30), 400));
    results.push(
      await measure("chart, 30 days, Europe/Berlin (a daylight-saving change)", () =>
        getViolationTimeline(db, {
          fromMs: END_MS - 30 * DAY,
          toMs: END_MS,
          timeZone: "Europe/Berlin",
          service: null,
          subscription: null,
          environment: null,
          graceMs: GRACE_MS,
          nowMs: END_MS,
        }),
      ),
    );

    const settings = { windowMs: WINDOW_MS, graceMs: GRACE_MS, traceUrlTemplate: "http://127.0.0.1:16686/trace/{traceId}", retentionDays: 30, nowMs: END_MS };
    const keys = [await keyWithEvents(db, "typical"), await keyWithEvents(db, "busiest")];
    for (const { key, events30d } of keys) {
      for (const days of [1, 7]) {
        results.push(
          await measure(
            `drill-down, key ${key} (${events30d} events in 30 days), ${days === 1 ? "24 hours" : "7 days"}`,
            () => getKeyDrilldown(db, { key, fromMs: END_MS - days * DAY, toMs: END_MS }, settings),
            100,
          ),
        );
      }
    }
    for (const days of [1, 7, 30]) {
      results.push(
        await measure(`top keys and workers, ${days === 1 ? "24 hours" : `${days} days`} (raw violations, partial index)`, () =>
          getTopViolations(db, {
            fromMs: END_MS - days * DAY,
            toMs: END_MS,
            timeZone: "UTC",
            service: null,
            subscription: null,
            environment: null,
            graceMs: GRACE_MS,
            nowMs: END_MS,
            limit: 10,
            ranking: "violations",
            lists: ["keys", "workers"],
          }),
        ),
      );
    }

    log(`plain-SQL baselines (one run each, cancelled after ${BASELINE_TIMEOUT_S} s)`);
    for (const days of [7, 30]) {
      results.push(
        await baseline(database.url, `baseline: chart, ${days} days, GROUP BY over raw events`, CHART_BASELINE_SQL, [
          new Date(END_MS - days * DAY),
          new Date(END_MS),
          `${chooseBucketMs(days * DAY) / 1000} seconds`,
        ]),
      );
    }
    const busiest = keys[1]!;
    results.push(
      await baseline(database.url, `baseline: drill-down, key ${busiest.key}, 7 days, correlated subqueries`, DRILLDOWN_BASELINE_SQL, [
        busiest.key,
        new Date(END_MS - 7 * DAY),
        new Date(END_MS),
        new Date(END_MS),
      ]),
    );

    console.log("\nResults (server time: the lib function, SQL and shaping; median of the runs)");
    for (const r of results) {
      const verdict = r.targetMs === undefined ? "" : r.medianMs < r.targetMs ? `  meets < ${r.targetMs} ms` : `  MISSES < ${r.targetMs} ms`;
      const figure = Number.isFinite(r.medianMs) ? `${r.medianMs.toFixed(0)} ms` : `> ${BASELINE_TIMEOUT_S} s`;
      console.log(`  ${r.label.padEnd(86)} ${figure.padStart(10)}${verdict}`);
    }
    console.log(
      `\nbench: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s in all, ${RUNS} runs per measurement, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
});
