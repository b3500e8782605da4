// `npm run bench:event-store-reads -- --database-url postgres://127.0.0.1:5432/baton_store [--runs 7] [--drop-a-day [--drop-days N]]`
//
// The reads and retention against a store loaded by `npm run bench:event-store-load` (100 million
// events over the last 7 days, say), as server time (the lib function a route handler calls: SQL
// plus the shaping in Node), warm: three runs first, then the median and range of --runs.
//   1. the 7-day violations chart (target 100 ms), top keys and workers over 24 hours (200 ms), a
//      key's drill-down over 24 hours (50 ms), a deployment's violations and the deployments list,
//      an event's drill-down by its id and time (`at`), and once by its id alone;
//   2. the plans of the statements those reads run on exclusivity_event, with the time range as
//      they bind it: each must name only the partitions of its range (partition pruning), with
//      their planning time (EXPLAIN (SUMMARY): the cost of the number of partitions);
//   3. with --drop-a-day: retention drops the oldest (partial) day untimed, then the next, whole
//      day (24 hour partitions of events and the day of violations), timed (target 1 s), after an
//      untimed CHECKPOINT (a day as old as retention drops was written to disk long ago; right
//      after a load it was not); with --drop-days N, the N next whole days one after another the
//      same way, and their median; with --compare-drops, the four next whole days are dropped in other ways, for comparison: what
//      retention does in SQL alone (a DETACH per partition, then one DROP of them all), a DETACH
//      and a DROP per partition, a DROP per partition (the lock on the parent held through each
//      unlink), and every DROP in one transaction; each prints its total and the longest time the
//      parent stayed locked. With --drop-an-hour: the oldest hour of events alone, as the
//      worker's hourly run drops it once the store is in its steady state. These delete data
//      from the store.
// Before measuring it checks that the rollups cover the loaded rows (bench:event-store-load builds
// them as the ingest path would have kept them) and adds 28 deployments over the 7 days (once).
import os from "node:os";
import { parseArgs } from "node:util";

import pg from "pg";

import { createDb } from "@/lib/db/client";
import { dropExpiredPartitions } from "@/lib/retention/drop-expired-partitions";
import { getDeploymentViolations } from "@/lib/violations/queries/get-deployment-violations";
import { getEventDrilldown, getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { getTopViolations } from "@/lib/violations/queries/get-top-violations";
import { getViolationTimeline } from "@/lib/violations/queries/get-violation-timeline";
import { listDeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import { assertLocalDatabaseUrl } from "@/tests/support/test-database";

const { values: args } = parseArgs({
  options: {
    "database-url": { type: "string" },
    runs: { type: "string", default: "7" },
    "drop-a-day": { type: "boolean", default: false },
    "drop-days": { type: "string", default: "1" },
    "compare-drops": { type: "boolean", default: false },
    "drop-an-hour": { type: "boolean", default: false },
  },
});
const RUNS = Number(args.runs);
const WARM_UP_RUNS = 3;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const GRACE_MS = 5 * 60_000;
const DEPLOYMENTS = 28;

const started = performance.now();
const log = (line: string) => console.log(`[reads ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

type Timing = { label: string; medianMs: number; minMs: number; maxMs: number; targetMs?: number };

async function measure(label: string, run: () => Promise<unknown>, targetMs?: number): Promise<Timing> {
  for (let i = 0; i < WARM_UP_RUNS; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const timing = { label, medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]!, maxMs: times.at(-1)!, targetMs };
  log(`${label}: median ${timing.medianMs.toFixed(1)} ms (min ${timing.minMs.toFixed(1)}, max ${timing.maxMs.toFixed(1)}); load average ${load()}`);
  return timing;
}

/** The WHERE clauses the reads bind on exclusivity_event (lib/violations/queries/*), for EXPLAIN. */
function plannedStatements(nowMs: number, key: string): { label: string; sql: string; values: unknown[] }[] {
  const from24h = new Date(nowMs - DAY).toISOString();
  const to = new Date(nowMs).toISOString();
  return [
    {
      label: "top keys and workers, 24 hours (get-top-violations.ts)",
      sql: "select e.key, count(*) from exclusivity_event e where e.observed_at >= $1::timestamptz and e.observed_at < $2::timestamptz and e.is_violation and e.counter > 0 group by e.key",
      values: [from24h, to],
    },
    {
      label: "key drill-down, 24 hours (get-key-drilldown.ts)",
      sql: "select baton_id_text(event_id) as event_id, observed_at from exclusivity_event where key = $1 and observed_at >= $2::timestamptz and observed_at < $3::timestamptz order by observed_at desc, exclusivity_event.event_id desc limit 1001",
      values: [key, from24h, to],
    },
    {
      label: "a deployment's violations (get-deployment-violations.ts)",
      sql: "select baton_id_text(e.event_id) as event_id from exclusivity_event e where e.service = $1 and e.observed_at >= date_trunc('minute', $2::timestamptz, 'UTC') and e.observed_at < $3::timestamptz and e.is_violation and e.counter > 0",
      values: ["service-3", new Date(nowMs - 2 * DAY).toISOString(), new Date(nowMs - 2 * DAY + 30 * 60_000).toISOString()],
    },
    {
      label: "the chart's rollup, 7 days (read-violation-rows.ts: violation_hour for the whole hours)",
      sql: "select bucket, service, sum(violations) from violation_hour where bucket >= $1::timestamptz and bucket < $2::timestamptz group by 1, 2",
      values: [new Date(Math.ceil((nowMs - 7 * DAY) / HOUR) * HOUR).toISOString(), new Date(Math.floor(nowMs / HOUR) * HOUR).toISOString()],
    },
  ];
}

async function main(): Promise<void> {
  const url = args["database-url"];
  if (!url) throw new Error("--database-url is required: a store loaded by bench:event-store-load");
  assertLocalDatabaseUrl(url);
  log(`${os.cpus().length} CPUs, load average ${load()}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const db = createDb(url);
  const results: Timing[] = [];
  try {
    // The chart reads the rollups only: they must cover the loaded rows (bench:event-store-load
    // builds them), not merely hold what a later bench:ingest run added.
    const [coverage] = (
      await client.query<{ oldest_event: Date | null; oldest_hour: Date | null }>(
        "select (select min(observed_at) from exclusivity_event) as oldest_event, (select min(bucket) from violation_hour) as oldest_hour",
      )
    ).rows as [{ oldest_event: Date | null; oldest_hour: Date | null }];
    if (coverage.oldest_event && (!coverage.oldest_hour || coverage.oldest_hour.getTime() > coverage.oldest_event.getTime())) {
      throw new Error(
        `the rollups do not reach back to the oldest stored event (${coverage.oldest_event.toISOString()}): load the store with bench:event-store-load, which builds them`,
      );
    }
    const nowMs = Date.now();
    await client.query(
      `insert into deployment (external_id, service, version, environment, started_at, finished_at, description)
       select 'store-bench-' || i, 'service-' || (i % 20), 'v' || i, 'production', $1::timestamptz + interval '6 hours' * i, $1::timestamptz + interval '6 hours' * i + interval '20 minutes', 'bench:event-store-reads'
       from generate_series(0, $2 - 1) i on conflict do nothing`,
      [new Date(nowMs - 7 * DAY).toISOString(), DEPLOYMENTS],
    );
    const [{ total, oldest, newest }] = (
      await client.query<{ total: string; oldest: Date; newest: Date }>(
        "select sum(c.reltuples)::bigint as total, (select min(observed_at) from exclusivity_event) as oldest, (select max(observed_at) from exclusivity_event) as newest from pg_partition_tree('exclusivity_event') t join pg_class c on c.oid = t.relid where t.isleaf",
      )
    ).rows as [{ total: string; oldest: Date; newest: Date }];
    log(`store: about ${Number(total).toLocaleString("en-US")} events from ${oldest.toISOString()} to ${newest.toISOString()}`);

    const endMs = Math.max(nowMs, newest.getTime() + 1);
    const range = (days: number) => ({
      fromMs: endMs - days * DAY,
      toMs: endMs,
      timeZone: "UTC",
      service: null,
      subscription: null,
      environment: null,
      graceMs: GRACE_MS,
      nowMs: endMs,
    });
    results.push(await measure("violations chart, 7 days", () => getViolationTimeline(db, range(7)), 100));
    results.push(
      await measure(
        "top keys and workers, 24 hours",
        () => getTopViolations(db, { ...range(1), limit: 10, ranking: "violations", lists: ["keys", "workers"] }),
        200,
      ),
    );
    const settings = { windowMs: 2 * 60_000, graceMs: GRACE_MS, traceUrlTemplate: null, retentionDays: 30, nowMs: endMs };
    const key = "user-12345";
    results.push(await measure(`key drill-down (${key}), 24 hours`, () => getKeyDrilldown(db, { key, fromMs: endMs - DAY, toMs: endMs }, settings), 50));
    results.push(
      await measure("a deployment's violations (20-minute rollout)", () =>
        getDeploymentViolations(db, `store-bench-${DEPLOYMENTS - 8}`, { graceMs: GRACE_MS, traceUrlTemplate: null, nowMs: endMs }),
      ),
    );
    results.push(await measure("deployments with their violations, 7 days", () => listDeploymentCoincidences(db, { ...range(7), limit: 50 })));
    // An event that is not a violation, from the middle of the store: by id and time (the
    // drill-down's links), then once by id alone (a scan of every hour partition).
    const middle = new Date(endMs - 3 * DAY).toISOString();
    const [sample] = (
      await client.query<{ event_id: string; observed_at: Date }>(
        "select baton_id_text(event_id) as event_id, observed_at from exclusivity_event where observed_at >= $1 and not is_violation order by observed_at limit 1",
        [middle],
      )
    ).rows;
    if (sample) {
      const lookup = { eventId: sample.event_id, atMs: sample.observed_at.getTime() };
      results.push(await measure("an event's drill-down by id and time (at)", () => getEventDrilldown(db, lookup, settings)));
      const t = performance.now();
      await getEventDrilldown(db, { eventId: sample.event_id, atMs: null }, settings);
      const ms = performance.now() - t;
      log(`an event's drill-down by id alone (one run): ${ms.toFixed(0)} ms; load average ${load()}`);
      results.push({ label: "an event's drill-down by id alone (one run)", medianMs: ms, minMs: ms, maxMs: ms });
    }
    const [{ n: partitions }] = (await client.query<{ n: number }>("select count(*)::int as n from pg_partition_tree('exclusivity_event') where isleaf"))
      .rows as [{ n: number }];

    console.log(`\nPlans (EXPLAIN (costs off, summary)): the partitions each read touches, of ${partitions} leaf partitions, and the time to plan it`);
    for (const statement of plannedStatements(endMs, key)) {
      // Planned five times: the last planning time is the warm one (catalog caches filled).
      let plan: { "QUERY PLAN": string }[] = [];
      for (let i = 0; i < 5; i++) plan = (await client.query<{ "QUERY PLAN": string }>(`explain (costs off, summary) ${statement.sql}`, statement.values)).rows;
      console.log(`-- ${statement.label}`);
      for (const row of plan) console.log(`   ${row["QUERY PLAN"]}`);
    }

    if (args["drop-a-day"]) {
      // The oldest UTC day is cut by the load's start: dropped first, untimed.
      const oldestDayEnd = Date.parse(`${oldest.toISOString().slice(0, 10)}T00:00:00Z`) + DAY;
      const partial = await dropExpiredPartitions(db, { events: new Date(oldestDayEnd), violations: new Date(oldestDayEnd) });
      log(`dropped the oldest, partial day first (${partial.length} partitions, untimed)`);
      const dropDays = Number(args["drop-days"]);
      const dayTimes: number[] = [];
      for (let d = 0; d < dropDays; d++) {
        const dayStart = oldestDayEnd + d * DAY;
        const end = dayStart + DAY;
        const [{ n: rows, bytes }] = (
          await client.query<{ n: string; bytes: string }>(
            `select (select count(*) from exclusivity_event where observed_at >= $1 and observed_at < $2) as n,
               (select sum(pg_total_relation_size(t.relid)) from pg_partition_tree('exclusivity_event') t join pg_class c on c.oid = t.relid
                where t.isleaf and c.relname ~ ('_p' || to_char($1::timestamptz at time zone 'UTC', 'YYYYMMDD') || '(\\d\\d)?$')) as bytes`,
            [new Date(dayStart).toISOString(), new Date(end).toISOString()],
          )
        ).rows as [{ n: string; bytes: string }];
        await client.query("checkpoint");
        const t = performance.now();
        const dropped = await dropExpiredPartitions(db, { events: new Date(end), violations: new Date(end) });
        const ms = performance.now() - t;
        dayTimes.push(ms);
        const what = `${Number(rows).toLocaleString("en-US")} events, ${(Number(bytes) / 1e9).toFixed(1)} GB, ${dropped.length} partitions`;
        log(`dropped ${dropped[0]} ... ${dropped.at(-1)} (${what}) in ${ms.toFixed(0)} ms (a DETACH per partition, then the DROPs); load average ${load()}`);
        if (d === 0) results.push({ label: `drop a whole day (${what})`, medianMs: ms, minMs: ms, maxMs: ms, targetMs: 1_000 });
      }
      if (dropDays > 1) {
        const sorted = [...dayTimes].sort((a, b) => a - b);
        results.push({
          label: `drop a whole day, ${dropDays} days one after another`,
          medianMs: sorted[Math.floor(sorted.length / 2)]!,
          minMs: sorted[0]!,
          maxMs: sorted.at(-1)!,
          targetMs: 1_000,
        });
      }
      const dayEnd = oldestDayEnd + dropDays * DAY;
      if (args["compare-drops"]) {
        const strategies = [
          "detach per partition, then one drop (SQL alone)",
          "detach, then drop, per partition",
          "drop per partition",
          "one transaction",
        ] as const;
        for (const [i, strategy] of strategies.entries()) {
          const from = dayEnd + i * DAY;
          const day = new Date(from).toISOString().slice(0, 10).replaceAll("-", "");
          const names = (
            await client.query<{ name: string; parent: string }>(
              `select c.relname as name, p.relname as parent from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
               where p.relname in ('exclusivity_event_violation', 'exclusivity_event_other') and c.relname ~ ('_p' || $1 || '([0-9][0-9])?$') order by 1`,
              [day],
            )
          ).rows;
          const started = performance.now();
          let longestLockMs = 0;
          const locked = async (statements: string[]) => {
            const t = performance.now();
            await client.query("begin");
            for (const statement of statements) await client.query(statement);
            await client.query("commit");
            longestLockMs = Math.max(longestLockMs, performance.now() - t);
          };
          if (strategy === "detach per partition, then one drop (SQL alone)") {
            for (const n of names) await locked([`alter table "${n.parent}" detach partition "${n.name}"`]);
            await client.query(`drop table ${names.map((n) => `"${n.name}"`).join(", ")}`);
          } else if (strategy === "detach, then drop, per partition") {
            for (const n of names) {
              await locked([`alter table "${n.parent}" detach partition "${n.name}"`]);
              await client.query(`drop table "${n.name}"`);
            }
          } else if (strategy === "drop per partition") {
            for (const n of names) await locked([`drop table "${n.name}"`]);
          } else {
            await locked(names.map((n) => `drop table "${n.name}"`));
          }
          const total = performance.now() - started;
          log(
            `compare drops, ${strategy}: day ${day}, ${names.length} partitions in ${total.toFixed(0)} ms, parent locked at most ${longestLockMs.toFixed(0)} ms at a time; load average ${load()}`,
          );
          results.push({
            label: `  compare: ${strategy} (day ${day}, parent locked <= ${longestLockMs.toFixed(0)} ms)`,
            medianMs: total,
            minMs: total,
            maxMs: total,
          });
        }
      }
    }

    if (args["drop-an-hour"]) {
      const hourEnd = Math.floor(oldest.getTime() / HOUR) * HOUR + HOUR;
      const [{ n: rows }] = (
        await client.query<{ n: string }>("select count(*) as n from exclusivity_event where observed_at < $1 and not is_violation", [
          new Date(hourEnd).toISOString(),
        ])
      ).rows as [{ n: string }];
      const t = performance.now();
      const dropped = await dropExpiredPartitions(db, { events: new Date(hourEnd), violations: new Date(0) });
      const ms = performance.now() - t;
      log(`dropped ${dropped.join(", ")} (${Number(rows).toLocaleString("en-US")} events) in ${ms.toFixed(0)} ms; load average ${load()}`);
      results.push({
        label: `drop the oldest hour of events (${Number(rows).toLocaleString("en-US")} events, ${dropped.length} partition)`,
        medianMs: ms,
        minMs: ms,
        maxMs: ms,
      });
    }

    console.log("\nResults (server time, warm: median of the runs)");
    for (const r of results) {
      const verdict = r.targetMs === undefined ? "" : r.medianMs < r.targetMs ? `  meets < ${r.targetMs} ms` : `  MISSES < ${r.targetMs} ms`;
      console.log(`  ${r.label.padEnd(70)} ${`${r.medianMs.toFixed(1)} ms`.padStart(10)}  (${r.minMs.toFixed(1)}-${r.maxMs.toFixed(1)})${verdict}`);
    }
    console.log(`\nmachine: ${os.cpus().length} CPUs, load average ${load()}`);
  } finally {
    await db.$disconnect();
    await client.end();
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    console.error("bench:event-store-reads failed:", error);
    process.exit(1);
  });
