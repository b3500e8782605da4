// Benchmark: GET /metrics with 10,000 watched resources (2,500 topics x 4 partitions, 30,000
// holder changes, as the poller writes them), a week of per-minute violation rollups for 10
// services (100,800 rows) and their deployments.
//
// Prints: the scrape's latency over HTTP (p50/p95/max), its size and how many series it exposes,
// and the same with the per-resource series dropped (BATON_METRICS_MAX_RESOURCES below the
// resource count).
//
// Run: npm run bench:metrics [-- --runs 50 --resources 10000]
import { parseArgs } from "node:util";

import { createDb } from "@/lib/db/client";
import { seedBoard } from "@/tests/bench/board-seed";
import { startRouteServer } from "@/tests/bench/route-server";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { runs: { type: "string", default: "50" }, resources: { type: "string", default: "10000" } } });
const RUNS = Number(values.runs);
const RESOURCES = Number(values.resources);
const CLUSTER = "bench";
const SERVICES = 10;
const ROLLUP_DAYS = 7;
/** Below the held resources' count, so the per-resource series are dropped. */
const DROP_ABOVE = 1_000;

function percentiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms (${samples.length} runs)`;
}

/** Sample lines of a text exposition: one per series. */
function countSeries(text: string): number {
  return text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createDb(database.url);
  try {
    const seedStart = performance.now();
    await seedBoard(db, { cluster: CLUSTER, resources: RESOURCES, partitionsPerTopic: 4, changes: 30_000, recentChanges: 3_000 });
    // A week of per-minute rollups for each service (a violation every 20th minute), and a
    // deployment of each service every 6 hours.
    await db.$executeRaw`insert into violation_minute (bucket, service, subscription, violations, events)
      select date_trunc('minute', now()) - m * interval '1 minute', 'service-' || s, '', case when m % 20 = 0 then 1 else 0 end, 100
      from generate_series(0, ${ROLLUP_DAYS * 1440 - 1}) as m, generate_series(1, ${SERVICES}) as s`;
    await db.$executeRaw`insert into deployment (service, version, started_at, finished_at)
      select 'service-' || s, 'v' || h, now() - h * interval '6 hours', now() - h * interval '6 hours' + interval '10 minutes'
      from generate_series(1, ${ROLLUP_DAYS * 4}) as h, generate_series(1, ${SERVICES}) as s`;
    await db.$executeRaw`insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
      select id, now(), now(), 100, 5000, 2500, ${RESOURCES}, 2500, 0, 1, 'bench' from cluster where name = ${CLUSTER}`;
    await db.$executeRaw`analyze`;
    console.log(
      `seeded ${RESOURCES} resources, 30,000 changes, ${SERVICES * ROLLUP_DAYS * 1440} rollup rows in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    // The route handler reads the configuration on first use.
    process.env.DATABASE_URL = database.url;
    process.env.BATON_CLUSTERS = JSON.stringify([{ name: CLUSTER, adminUrl: "http://127.0.0.1:49151" }]);
    const { GET } = await import("@/app/metrics/route");
    const { readMetricSnapshot } = await import("@/lib/metrics/read-metric-snapshot");
    const { buildSnapshotRegistry } = await import("@/lib/metrics/render-metrics");
    const { getDb } = await import("@/lib/db/client");

    const server = await startRouteServer({ "GET /metrics": GET as never });
    try {
      const times: number[] = [];
      let body = "";
      for (let i = 0; i < RUNS + 5; i++) {
        const start = performance.now();
        const response = await fetch(`${server.url}/metrics`);
        body = await response.text();
        if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
        if (i >= 5) times.push(performance.now() - start);
      }
      const holderSeries = body.split("\n").filter((line) => line.startsWith("baton_resource_holder_info{")).length;
      console.log(`GET /metrics over HTTP at ${RESOURCES} resources: ${percentiles(times)}`);
      console.log(`  ${countSeries(body)} series (${holderSeries} of them baton_resource_holder_info), ${(body.length / 1e6).toFixed(2)} MB of text`);

      const dropped: number[] = [];
      let text = "";
      for (let i = 0; i < RUNS + 5; i++) {
        const start = performance.now();
        const snapshot = await readMetricSnapshot(getDb(), { clusterNames: [CLUSTER], maxResourceSeries: DROP_ABOVE, deploymentGraceMs: 5 * 60_000 });
        text = await buildSnapshotRegistry(snapshot).metrics();
        if (i >= 5) dropped.push(performance.now() - start);
      }
      console.log(`with BATON_METRICS_MAX_RESOURCES=${DROP_ABOVE} (per-resource series dropped), the database part in-process: ${percentiles(dropped)}`);
      console.log(`  ${countSeries(text)} series from the database (the process's own metrics come on top)`);
    } finally {
      await server.close();
    }
  } finally {
    await db.$disconnect();
    await database.stop();
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
