// Benchmark: Baton on 5,000 dynamodb-lock-client lock items, on a real DynamoDB Local 2.5.4.
//  1. The cost of a full read (parallel paginated Scans of the whole table within the budget):
//     Scan requests, time, read capacity units DynamoDB reports, DynamoDB Local's CPU (its JVM's,
//     from /proc) and Baton's; at the defaults (pages of 1,000, 4 segments), with 1 segment, and
//     with pages of 100.
//  2. Detection latency of a holder crash through the worker's poller: a real lock client
//     (heartbeating) holds one of the 5,000 locks and is killed (SIGKILL). Its lease runs out a
//     lease after its last heartbeat, which our own reader sees (a GetItem every 20 ms records
//     when each record version first appeared); the clock starts there and stops when the
//     change row (EXPIRED) is committed. Target: p95 under the read interval + 1 s.
// Run: npm run bench:dynamodb [-- --locks 5000 --trials 10 --interval-ms 1000 --lease-ms 2000]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { BatchWriteItemCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";

import { loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createDynamodbHoldSource } from "@/lib/sources/dynamodb";
import { parseDynamodbClusterConfig } from "@/lib/sources/dynamodb/dynamodb-config";
import { startDynamodbContender } from "@/tests/support/dynamodb-contender";
import { startDynamodbServer, TEST_AWS_CREDENTIALS, TEST_AWS_REGION, type TestDynamodbServer } from "@/tests/support/dynamodb-server";
import { createTestDb, registerCluster, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({
  options: {
    locks: { type: "string", default: "5000" },
    trials: { type: "string", default: "10" },
    "interval-ms": { type: "string", default: "1000" },
    "lease-ms": { type: "string", default: "2000" },
  },
});
const lockCount = Number(values.locks);
const trials = Number(values.trials);
const intervalMs = Number(values["interval-ms"]);
const leaseMs = Number(values["lease-ms"]);
const TABLE = "bench-locks";
/** BatchWriteItem's limit. */
const BATCH = 25;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function populate(server: TestDynamodbServer): Promise<void> {
  const batches: number[][] = [];
  for (let i = 0; i < lockCount; i += BATCH) batches.push([...Array(Math.min(BATCH, lockCount - i)).keys()].map((j) => i + j));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        const requests = batch.map((i) => ({
          PutRequest: {
            Item: {
              key: { S: `job-${i}` },
              ownerName: { S: `pod-${i % 100}` },
              leaseDuration: { S: "3600000" },
              recordVersionNumber: { S: randomUUID() },
              data: { B: Buffer.from(`worker ${i}`) },
            },
          },
        }));
        let answer = await server.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } }));
        while (answer.UnprocessedItems && Object.keys(answer.UnprocessedItems).length > 0)
          answer = await server.client.send(new BatchWriteItemCommand({ RequestItems: answer.UnprocessedItems }));
      }
    }),
  );
}

async function measureFullRead(server: TestDynamodbServer, pageSize: number, segments: number): Promise<void> {
  const config = parseDynamodbClusterConfig({
    kind: "dynamodb",
    name: "bench",
    region: TEST_AWS_REGION,
    endpoint: server.endpoint,
    tableName: TABLE,
    pageSize,
    segments,
    requestTimeoutMs: 30_000,
  });
  const source = createDynamodbHoldSource(config);
  try {
    const found = await source.discover();
    if (found.keys.length !== lockCount) throw new Error(`discovered ${found.keys.length} locks, expected ${lockCount}`);
    source.takeRequestCount();
    await delay(1_100); // past the discovery's reuse: the read below Scans the table itself
    for (const label of ["read 1", "read 2"]) {
      const [serverBefore, batonBefore, started] = [server.cpuMs(), process.cpuUsage(), performance.now()];
      const read = await source.observe(found.keys);
      const elapsed = performance.now() - started;
      const baton = process.cpuUsage(batonBefore);
      if (read.errors.length > 0 || read.observations.some((o) => o.holder === null))
        throw new Error(`read errors: ${read.errors[0]?.message ?? "a free lock"}`);
      const cost = source.lastReadCost()!;
      console.log(
        `  page size ${String(pageSize).padStart(5)}, ${segments} segment${segments > 1 ? "s" : " "} ${label}: ${String(source.takeRequestCount()).padStart(4)} Scan requests  ${elapsed.toFixed(0).padStart(6)} ms  ${cost.capacityUnits.toFixed(1).padStart(7)} RCU  DynamoDB Local CPU ${((server.cpuMs() - serverBefore) / 1000).toFixed(2)} s  Baton CPU ${((baton.user + baton.system) / 1e6).toFixed(2)} s`,
      );
    }
  } finally {
    await source.close();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Records when each record version of `key` first appeared, by reading it every 20 ms, until stopped. */
function trackVersions(server: TestDynamodbServer, key: string): { lastVersionAt(): number; stop(): Promise<void> } {
  let lastVersion = "";
  let lastAt = 0;
  let isRunning = true;
  const loop = (async () => {
    while (isRunning) {
      const answer = await server.client.send(new GetItemCommand({ TableName: TABLE, Key: { key: { S: key } }, ConsistentRead: true }));
      const version = answer.Item?.recordVersionNumber?.S ?? "";
      if (version !== lastVersion) {
        lastVersion = version;
        lastAt = Date.now();
      }
      await delay(20);
    }
  })();
  return {
    lastVersionAt: () => lastAt,
    async stop() {
      isRunning = false;
      await loop;
    },
  };
}

async function measureLatency(db: Db, databaseUrl: string, server: TestDynamodbServer): Promise<void> {
  const name = `bench-dynamodb-${randomUUID().slice(0, 6)}`;
  const cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      { kind: "dynamodb", name, region: TEST_AWS_REGION, endpoint: server.endpoint, tableName: TABLE, readIntervalMs: intervalMs, discoveryIntervalMs: 60_000 },
    ]),
  }).clusters[0]!;
  const clusterId = await registerCluster(db, cluster);
  const poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: `bench-${name}` });
  const rowOf = (key: string) => db.heldResource.findUnique({ where: { clusterId_resourceKey: { clusterId, resourceKey: key } }, select: { holder: true } });
  const latencies: number[] = [];
  const requestCounts: number[] = [];
  try {
    await waitFor(
      async () => db.heldResource.count({ where: { clusterId, holder: { not: null } } }),
      (count) => count >= lockCount,
      "the first full read",
      600,
      100,
    );
    for (let trial = 0; trial < trials; trial++) {
      const key = `crash-${trial}`;
      const contender = await startDynamodbContender({
        endpoint: server.endpoint,
        tableName: TABLE,
        owner: `doomed-${trial}`,
        leaseMs,
        heartbeatMs: Math.max(100, Math.floor(leaseMs / 4)),
      });
      const tracker = trackVersions(server, key);
      try {
        await contender.acquire("h", key);
        await contender.next("h", "acquired");
        await waitFor(
          () => rowOf(key),
          (row) => row?.holder === `doomed-${trial}`,
          "the holder to be seen",
          300,
          20,
        );
        await delay(Math.random() * leaseMs); // any phase of the heartbeat and the read cycle
        await contender.kill();
        const row = await waitFor(
          () => db.holderChange.findFirst({ where: { clusterId, resource: { resourceKey: key } }, select: { detectedAt: true, ending: true } }),
          (r) => r !== null,
          "the crash's change row",
          1_000,
          10,
        );
        if (row!.ending !== "EXPIRED") throw new Error(`a crash recorded as ${row!.ending}`);
        latencies.push(row!.detectedAt.getTime() - (tracker.lastVersionAt() + leaseMs));
      } finally {
        await tracker.stop();
        await contender.kill();
      }
    }
    const runs = await db.pollRun.findMany({ where: { clusterId }, orderBy: { id: "desc" }, take: 20, select: { requestCount: true, durationMs: true } });
    requestCounts.push(...runs.map((r) => r.requestCount));
    const durations = runs.map((r) => r.durationMs).sort((a, b) => a - b);
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(`detection of a holder crash through the poller (read every ${intervalMs} ms, lease ${leaseMs} ms, ${lockCount} locks):`);
    console.log(
      `  lease end (last heartbeat + lease) -> EXPIRED row: p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms (${sorted.length} trials)`,
    );
    console.log(`  poll cycles: ${Math.max(...requestCounts)} requests each at most, p50 ${percentile(durations, 50)} ms, max ${durations.at(-1)} ms`);
    console.log(`  target p95 < read interval + 1 s (${intervalMs + 1_000} ms): ${percentile(sorted, 95) < intervalMs + 1_000 ? "met" : "NOT met"}`);
  } finally {
    await poller.stop();
    await db.cluster.deleteMany({ where: { name } });
  }
}

async function main(): Promise<void> {
  process.env.AWS_ACCESS_KEY_ID ??= TEST_AWS_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY ??= TEST_AWS_CREDENTIALS.secretAccessKey;
  const server = await startDynamodbServer();
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
  try {
    await server.createLockTable(TABLE);
    const started = performance.now();
    await populate(server);
    console.log(`DynamoDB Local ${server.endpoint}: ${lockCount} lock items written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log("full read of the table (budget 20 Scan requests/s, the default):");
    await measureFullRead(server, 1_000, 4);
    await measureFullRead(server, 1_000, 1);
    await measureFullRead(server, 100, 4);
    await measureLatency(db, database.url, server);
  } finally {
    await db.$disconnect();
    await database.stop();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
