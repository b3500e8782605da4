// `npm run bench:owners [-- --runs 7 --splits-per-day 24]`
//
// Owner lookups for one page of 10,000 violations, as server time (the lib function the route
// handler calls: SQL plus the computation in Node), in a throwaway embedded PostgreSQL:
//   - 40 Key_Shared subscription partitions, each with --splits-per-day splits over the day (a
//     rebalance every hour by default; 4 consumers over ~200 ranges, 4.2-shaped), and 40 Failover
//     subscription partitions with a leader change every half hour;
//   - 10,000 violations over the last 24 hours: half on the Key_Shared subscriptions, half on the
//     Failover ones without a partition (routed from the key by the producers' hashing).
// Prints, after three warm-up runs, the median and range over --runs of: the whole page
// (getViolationOwners: the 10,000 events, the history, the owners) and the owners alone
// (computeOwners for the same 10,000 subjects), with the Node process's CPU time and the load.
import os from "node:os";
import { parseArgs } from "node:util";

import { createDb, type Db } from "@/lib/db/client";
import { compactId } from "@/lib/ingest/compact-id";
import { digestHashRangeSplit } from "@/lib/poller/split-digest";
import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { getViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { computeOwners } from "@/lib/violations/queries/read-owner-history";
import { startTestDatabase } from "@/tests/support/test-database";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "7" }, "splits-per-day": { type: "string", default: "24" } } });
const RUNS = Number(args.runs);
/** Rebalances (a consumer joining or leaving) per Key_Shared partition over the day. */
const SPLITS_PER_DAY = Number(args["splits-per-day"]);
const VIOLATIONS = 10_000;
const HOUR = 3_600_000;
const END_MS = Date.parse("2026-11-22T12:00:00Z");
const START_MS = END_MS - 24 * HOUR;
const WINDOW_MS = 2 * 60_000;
const PARTITIONS = 4;
const SUBSCRIPTIONS = 10;

/** A small deterministic generator: the same dataset on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** ~200 ranges over 1..65535, dealt to the consumers at random: a 4.2 consistent-hashing split's shape. */
function makeSplit(next: () => number, consumers: string[]): HashRangeSplit {
  const byConsumer = new Map<string, HashRange[]>(consumers.map((c) => [c, []]));
  const width = Math.ceil(65_535 / 200);
  for (let start = 1; start <= 65_535; start += width)
    byConsumer.get(consumers[Math.floor(next() * consumers.length)]!)!.push([start, Math.min(65_535, start + width - 1)]);
  return { space: 65_536, consumers: [...byConsumer].filter(([, ranges]) => ranges.length > 0).map(([consumer, ranges]) => ({ consumer, ranges })) };
}

async function seed(db: Db): Promise<void> {
  const next = random(42);
  const cluster = await db.cluster.create({ data: { name: "bench-owners", adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5_000 }, select: { id: true } });
  const topics: { topic: string; subscription: string; type: "Key_Shared" | "Failover" }[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    topics.push({ topic: `persistent://bench/ns/clicks-${i}`, subscription: "clicks-readers", type: "Key_Shared" });
    topics.push({ topic: `persistent://bench/ns/orders-${i}`, subscription: "orders-workers", type: "Failover" });
  }
  for (const { topic, subscription, type } of topics) {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const resource = await db.heldResource.create({
        data: {
          clusterId: cluster.id,
          kind: "PULSAR_SUBSCRIPTION_PARTITION",
          resourceKey: `${topic}|${subscription}|${partition}`,
          tenant: "bench",
          namespace: "bench/ns",
          topic,
          partition,
          subscription,
          subscriptionType: type,
          holder: type === "Failover" ? "w-0" : null,
          firstSeenAt: new Date(START_MS - 7 * 24 * HOUR),
        },
        select: { id: true },
      });
      if (type === "Key_Shared") {
        const every = (24 * HOUR) / SPLITS_PER_DAY;
        const rows = Array.from({ length: SPLITS_PER_DAY }, (_, h) => {
          const split = makeSplit(next, ["c-0", "c-1", "c-2", "c-3"]);
          return {
            clusterId: cluster.id,
            resourceId: resource.id,
            signature: digestHashRangeSplit(split),
            split,
            changedAfter: h === 0 ? null : new Date(START_MS + h * every - 500),
            validFrom: new Date(START_MS + h * every),
            validTo: h === SPLITS_PER_DAY - 1 ? null : new Date(START_MS + (h + 1) * every),
          };
        });
        await db.keySharedRangeSplit.createMany({ data: rows });
      } else {
        const rows = Array.from({ length: 48 }, (_, c) => ({
          clusterId: cluster.id,
          resourceId: resource.id,
          kind: "HOLDER_CHANGED" as const,
          fromHolder: `w-${c % 3}`,
          toHolder: `w-${(c + 1) % 3}`,
          oldSeenAt: new Date(START_MS + (c * HOUR) / 2 - 500),
          newSeenAt: new Date(START_MS + (c * HOUR) / 2),
          pollerEpoch: 1n,
        }));
        await db.holderChange.createMany({ data: rows });
      }
    }
  }
  const events = Array.from({ length: VIOLATIONS }, (_, i) => {
    const target = topics[i % topics.length]!;
    return {
      eventId: compactId(`bench-owner-${i}`),
      key: `user-${Math.floor(next() * 100_000)}`,
      counter: 1,
      isViolation: true,
      service: "bench",
      worker: `pod-${i % 7}`,
      topic: target.type === "Key_Shared" ? `${target.topic}-partition-${i % PARTITIONS}` : target.topic,
      subscription: target.subscription,
      partition: null,
      observedAt: new Date(START_MS + Math.floor(next() * 24 * HOUR)),
    };
  });
  await db.exclusivityEvent.createMany({ data: events });
}

function summarise(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms (range ${sorted[0]!.toFixed(1)}-${sorted[sorted.length - 1]!.toFixed(1)} ms over ${sorted.length} runs)`;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure<T>(label: string, run: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  for (let i = 0; i < 3; i++) result = await run();
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    result = await run();
    times.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
  }
  // On a shared machine the wall time includes waiting for a core: the Node process's own CPU
  // time (the database's is not in it) and the load average say how much.
  console.log(
    `${label}: ${summarise(times)}; Node CPU median ${medianOf(cpuTimes).toFixed(1)} ms; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
  );
  return result!;
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createDb(database.url);
  try {
    await seed(db);
    const query = { fromMs: START_MS, toMs: END_MS, service: "bench", subscription: null, cause: null, limit: VIOLATIONS };
    const settings = { windowMs: WINDOW_MS, graceMs: 5 * 60_000, producerRouting: {} };
    const page = await measure(`a page of ${VIOLATIONS.toLocaleString("en-US")} violations with their causes and owners (getViolationCauses)`, () =>
      getViolationCauses(db, query, settings),
    );
    const subjects = page.violations.map((v) => ({
      key: v.key,
      topic: v.topic,
      subscription: v.subscription,
      partition: v.partition,
      observedAt: v.observedAt,
    }));
    await measure(`the owner lookups alone for the same ${VIOLATIONS.toLocaleString("en-US")} (computeOwners)`, () => computeOwners(db, subjects, settings));
    console.log(`page: ${page.violations.length} violations; causes ${JSON.stringify(page.counts)}`);
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
