// Benchmark: detection latency end to end against a real broker, from killing the active
// consumer of a Failover partition to the change row being committed. Target: p95 under
// poll interval + 2 s. Run: npm run bench:latency [-- --interval-ms 1000 --kills 12]
import { parseArgs } from "node:util";

import { createFleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor } from "@/tests/support/poller-harness";
import { startTestBroker } from "@/tests/support/pulsar";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { "interval-ms": { type: "string", default: "1000" }, kills: { type: "string", default: "12" } } });
const intervalMs = Number(values["interval-ms"]);
const kills = Number(values.kills);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const broker = await startTestBroker();
  const db = createTestDb(database.url);
  const fleet = createFleet({ wsUrl: broker.wsUrl });
  try {
    const scratch = await createScratchNamespace(broker.adminUrl, "latency");
    const topic = scratch.topic("jobs");
    await createPartitionedTopic(broker.adminUrl, topic, 4);
    await fleet.startGroup({ names: ["w1", "w2", "w3"], topic, subscription: "jobs", subscriptionType: "Failover" });
    const cluster = testClusterConfig("latency", broker.adminUrl, scratch.namespace, intervalMs);
    const clusterId = await registerCluster(db, cluster);
    const poller = startPoller({ databaseUrl: database.url, cluster, clusterId, pollerId: "bench" });
    const leaderOf0 = async () =>
      (await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5000 }, parseTopicName(topic)!.topic)).partitions[`${topic}-partition-0`]
        ?.subscriptions.jobs?.activeConsumerName ?? null;
    const storedLeader = async () =>
      (await db.heldResource.findFirst({ where: { clusterId, partition: 0, subscription: "jobs" }, select: { holder: true } }))?.holder ?? null;
    await waitFor(storedLeader, (h) => h !== null, "the first poll", 300, 100);

    const latencies: number[] = [];
    for (let i = 0; i < kills; i++) {
      const leader = await leaderOf0();
      await waitFor(storedLeader, (h) => h === leader, "Baton to agree with the broker", 300, 50);
      const lastId = (await db.holderChange.findFirst({ orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0n;
      // A random phase against the poll cycle, as a real crash would have.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * intervalMs));
      const killedAt = Date.now();
      await fleet.consumer(leader!).kill();
      const row = await waitFor(
        () =>
          db.holderChange.findFirst({
            where: { clusterId, id: { gt: lastId }, resource: { partition: 0 }, kind: "HOLDER_CHANGED" },
            select: { detectedAt: true },
          }),
        (r) => r !== null,
        "the change row",
        600,
        20,
      );
      latencies.push(row!.detectedAt.getTime() - killedAt);
      await fleet.consumer(leader!).start();
    }
    await poller.stop();
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `detection latency, kill of the active consumer -> change row committed (${kills} kills, poll interval ${intervalMs} ms, Pulsar ${broker.version}):`,
    );
    console.log(`  p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms (target p95 < ${intervalMs + 2000} ms)`);
  } finally {
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
