// Benchmark: the worker polling 1,000 partitioned subscriptions (100 topics x 10 partitions)
// on a real broker at a 5 s interval within the default budget of 50 requests/s. Prints cycle
// time, requests per cycle, and the worker process's CPU and RSS.
// Run: npm run bench:poller [-- --topics 100 --partitions 10 --cycles 6]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

import { createFleet } from "@/tools/fleet/fleet";
import { createPartitionedTopic, createScratchNamespace, createSubscription } from "@/tools/pulsar/admin-setup";
import { createTestDb, waitFor } from "@/tests/support/poller-harness";
import { startTestBroker } from "@/tests/support/pulsar";
import { startTestDatabase } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";
import { workerEnv } from "@/tools/build-worker.mjs";

const { values } = parseArgs({
  options: {
    topics: { type: "string", default: "100" },
    partitions: { type: "string", default: "10" },
    cycles: { type: "string", default: "6" },
    "with-consumers": { type: "string", default: "20" },
  },
});
const TOPICS = Number(values.topics);
const PARTITIONS = Number(values.partitions);
const CYCLES = Number(values.cycles);
const TOPICS_WITH_CONSUMERS = Math.min(TOPICS, Number(values["with-consumers"]));
const INTERVAL_MS = 5_000;
const CLOCK_TICKS = 100; // USER_HZ on Linux

function readCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
}

function readRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const broker = await startTestBroker();
  const db = createTestDb(database.url);
  const fleet = createFleet({ wsUrl: broker.wsUrl });
  let worker: ReturnType<typeof spawn> | undefined;
  try {
    const scratch = await createScratchNamespace(broker.adminUrl, "scale");
    console.log(`creating ${TOPICS} topics x ${PARTITIONS} partitions, consumers on ${TOPICS_WITH_CONSUMERS} of them...`);
    for (let t = 0; t < TOPICS; t++) {
      const topic = scratch.topic(`events-${t}`);
      await createPartitionedTopic(broker.adminUrl, topic, PARTITIONS);
      if (t < TOPICS_WITH_CONSUMERS) await fleet.startGroup({ names: [`w${t}-a`, `w${t}-b`], topic, subscription: "workers", subscriptionType: "Failover" });
      else await createSubscription(broker.adminUrl, topic, "workers");
    }
    const clusters = JSON.stringify([{ name: "scale", adminUrl: broker.adminUrl, scope: { namespaces: [scratch.namespace] }, pollIntervalMs: INTERVAL_MS }]);
    worker = spawn(process.execPath, await workerNodeArgs(), {
      env: workerEnv({ ...process.env, DATABASE_URL: database.url, BATON_CLUSTERS: clusters }),
      stdio: ["ignore", "ignore", "inherit"],
    });
    const pid = worker.pid!;
    const clusterId = await waitFor(
      () => db.cluster.findUnique({ where: { name: "scale" }, select: { id: true } }),
      (c) => c !== null,
      "the worker to register the cluster",
      300,
      200,
    ).then((c) => c!.id);
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (n) => n >= 2,
      "two warm-up cycles",
      600,
      200,
    );
    const cpuStart = readCpuSeconds(pid);
    const wallStart = Date.now();
    const firstMeasured = await db.pollRun.count({ where: { clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (n) => n >= firstMeasured + CYCLES,
      `${CYCLES} measured cycles`,
      1200,
      250,
    );
    const cpuPercent = ((readCpuSeconds(pid) - cpuStart) / ((Date.now() - wallStart) / 1000)) * 100;
    const rssMb = readRssMb(pid);
    const runs = await db.pollRun.findMany({
      where: { clusterId },
      orderBy: { startedAt: "asc" },
      skip: firstMeasured,
      take: CYCLES,
      select: { durationMs: true, cycleMs: true, requestCount: true, resourceCount: true, errorCount: true },
    });
    const avg = (pick: (r: (typeof runs)[number]) => number) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
    const resources = await db.heldResource.count({ where: { clusterId, goneAt: null } });
    console.log(
      `poller scale: ${resources} partition-subscriptions (${TOPICS} topics x ${PARTITIONS} partitions), interval ${INTERVAL_MS} ms, budget 50 requests/s, Pulsar ${broker.version}`,
    );
    console.log(
      `  cycle: work ${avg((r) => r.durationMs).toFixed(0)} ms (max ${Math.max(...runs.map((r) => r.durationMs))} ms), cycle time ${avg((r) => r.cycleMs ?? 0).toFixed(0)} ms, ${avg((r) => r.requestCount).toFixed(0)} requests per cycle (${(avg((r) => r.requestCount) / (INTERVAL_MS / 1000)).toFixed(1)}/s), errors ${runs.reduce((s, r) => s + r.errorCount, 0)}`,
    );
    console.log(`  worker process: CPU ${cpuPercent.toFixed(1)}% of one core, RSS ${rssMb.toFixed(0)} MB`);
  } finally {
    worker?.kill("SIGTERM");
    await fleet.shutdown("kill");
    await db.$disconnect();
    await broker.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
