// Benchmark: a subscription's timeline over 7 days with 20,000 leader changes on 4 partitions,
// in a database that also holds a 10,000-partition board (as in production, the timeline's
// queries must find one subscription's rows among many).
//
// Prints: the read model's time (getSubscriptionTimeline), GET /api/v1/subscriptions/timeline
// and /changes over HTTP (time and bytes), and what the chart gets to draw (segments, markers).
//
// Run: node --conditions=react-server --import tsx tests/bench/timeline-7d.ts [--runs 15]
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

import { createDb } from "@/lib/db/client";
import { seedBoard } from "@/tests/bench/board-seed";
import { startRouteServer } from "@/tests/bench/route-server";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" }, changes: { type: "string", default: "20000" } } });
const RUNS = Number(values.runs);
const CHANGES = Number(values.changes);
const DAY = 86_400_000;

function summarize(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (${samples.length} runs)`;
}

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createDb(database.url);
  try {
    await seedBoard(db, { cluster: "board", resources: 10_000, partitionsPerTopic: 4, changes: 30_000, recentChanges: 3_000 });
    const [{ topics }, seedMs] = await time(() =>
      seedBoard(db, {
        cluster: "timeline",
        resources: 4,
        partitionsPerTopic: 4,
        changes: CHANGES,
        recentChanges: 0,
        subscriptionType: "Failover",
        tenantPrefix: "timeline",
      }),
    );
    const ref = { cluster: "timeline", topic: topics[0]!, subscription: "sub-0" };
    console.log(`seeded a 10,000-partition board, and ${CHANGES} changes over 7 days on ${ref.topic} (${(seedMs / 1000).toFixed(1)} s)`);

    process.env.DATABASE_URL = database.url;
    process.env.BATON_CLUSTERS = JSON.stringify([
      { name: "board", adminUrl: "http://127.0.0.1:49151" },
      { name: "timeline", adminUrl: "http://127.0.0.1:49151" },
    ]);
    const { getConfig } = await import("@/lib/config");
    const { getDb } = await import("@/lib/db/client");
    const { getSubscriptionTimeline } = await import("@/lib/subscriptions/get-subscription-timeline");
    const timelineRoute = await import("@/app/api/v1/subscriptions/timeline/route");
    const changesRoute = await import("@/app/api/v1/subscriptions/changes/route");

    const read = () => {
      const toMs = Date.now();
      return getSubscriptionTimeline(getDb(), { ...ref, fromMs: toMs - 7 * DAY, toMs, thresholds: getConfig().board });
    };
    for (let i = 0; i < 3; i++) await read();
    const times: number[] = [];
    let result: Awaited<ReturnType<typeof read>> | undefined;
    for (let i = 0; i < RUNS; i++) {
      const [value, ms] = await time(read);
      result = value;
      times.push(ms);
    }
    const { timeline } = result!;
    const segments = timeline.lanes.reduce((sum, lane) => sum + lane.segments.length, 0);
    console.log(
      `getSubscriptionTimeline, 7 days: ${summarize(times)}; ${timeline.changeCount} changes drawn as ${segments} segments and ${timeline.markers.length} markers`,
    );

    const server = await startRouteServer({
      "GET /api/v1/subscriptions/timeline": timelineRoute.GET as never,
      "GET /api/v1/subscriptions/changes": changesRoute.GET as never,
    });
    try {
      for (const path of ["timeline", "changes"]) {
        const httpTimes: number[] = [];
        let bytes = 0;
        for (let i = 0; i < RUNS + 3; i++) {
          const toMs = Date.now();
          const query = new URLSearchParams({ ...ref, from: String(toMs - 7 * DAY), to: String(toMs) });
          const [text, ms] = await time(async () => {
            const response = await fetch(`${server.url}/api/v1/subscriptions/${path}?${query}`, { headers: { "accept-encoding": "identity" } });
            if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
            return response.text();
          });
          bytes = text.length;
          if (i >= 3) httpTimes.push(ms);
        }
        console.log(`GET /api/v1/subscriptions/${path} (7 days) over HTTP: ${summarize(httpTimes)}; ${(bytes / 1e3).toFixed(0)} kB`);
      }
    } finally {
      await server.close();
    }
    console.log(`(the timeline answer gzips to ${(gzipSync(JSON.stringify(result)).length / 1e3).toFixed(0)} kB)`);
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
