import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig, type ClusterConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { STATS_QUERY } from "@/lib/pulsar/admin-client";
import { parseTopicName, topicPath } from "@/lib/pulsar/topic-name";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// maxStatsBytes against the real broker: a topic whose partitioned-stats answer grows past the
// limit (more Key_Shared consumers, each with its hash ranges on every partition) goes stale with
// an error naming it and the limit; the other topic of the cycle stays current.

const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let bigTopic: string;
let smallTopic: string;
let poller: RunningPoller | null = null;
let limit: number;
let namespace: string;
const clusterName = `stats-limit-${Date.now().toString(36)}`;
let clusterId: number;

async function answerBytes(topic: string): Promise<number> {
  const response = await fetch(`${broker.adminUrl}/admin/v2/${topicPath(parseTopicName(topic)!.topic)}/partitioned-stats?perPartition=true&${STATS_QUERY}`);
  return Buffer.byteLength(await response.text());
}

async function rowsOf(topic: string) {
  return db.heldResource.findMany({
    where: { clusterId, topic, goneAt: null },
    select: { partition: true, staleSince: true, lastError: true, consumers: true },
  });
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  const scratch = await createTestNamespace("stats-limit");
  cleanupNamespace = scratch.cleanup;
  namespace = scratch.namespace;
  bigTopic = scratch.topic("wide");
  smallTopic = scratch.topic("narrow");
  await createPartitionedTopic(broker.adminUrl, bigTopic, 40);
  await createPartitionedTopic(broker.adminUrl, smallTopic, 2);
  await fleet.startGroup({ names: ["k1"], topic: bigTopic, subscription: "keyed", subscriptionType: "Key_Shared" });
  await fleet.startGroup({ names: ["f1"], topic: smallTopic, subscription: "ordered", subscriptionType: "Failover" });
});

afterAll(async () => {
  await poller?.stop();
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
  await db?.$disconnect();
});

describe("a stats answer over the cluster's maxStatsBytes", () => {
  it("makes its topic stale with an error naming the topic and the limit, while the rest of the cycle stays current", async () => {
    const oneConsumerBytes = await answerBytes(bigTopic);
    // Two more Key_Shared consumers: each partition's answer now lists three consumers and their ranges.
    await fleet.startGroup({ names: ["k2", "k3"], topic: bigTopic, subscription: "keyed", subscriptionType: "Key_Shared" });
    const threeConsumersBytes = await waitFor(
      () => answerBytes(bigTopic),
      (bytes) => bytes > oneConsumerBytes * 1.5,
      "the broker to list the new consumers",
    );
    limit = Math.max(65_536, Math.round((oneConsumerBytes + threeConsumersBytes) / 2));
    expect(oneConsumerBytes).toBeLessThan(limit);
    expect(threeConsumersBytes).toBeGreaterThan(limit);
    await fleet.consumer("k3").kill();
    await fleet.consumer("k2").kill();
    await waitFor(
      () => answerBytes(bigTopic),
      (bytes) => bytes < limit,
      "the broker to drop k2 and k3",
    );

    const cluster: ClusterConfig = loadConfig({
      BATON_CLUSTERS: JSON.stringify([
        {
          name: clusterName,
          adminUrl: broker.adminUrl,
          scope: { namespaces: [namespace] },
          pollIntervalMs: 500,
          discoveryIntervalMs: 1000,
          requestTimeoutMs: 5000,
          maxStatsBytes: limit,
        },
      ]),
    }).clusters[0]!;
    clusterId = await registerCluster(db, cluster);
    poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "stats-limit" });
    await waitFor(
      () => rowsOf(bigTopic),
      (rows) => rows.length === 40 && rows.every((r) => r.staleSince === null),
      "the wide topic read under the limit",
    );
    await waitFor(
      () => rowsOf(smallTopic),
      (rows) => rows.length === 2 && rows.every((r) => r.staleSince === null),
      "the narrow topic read",
    );

    await fleet.startGroup({ names: ["k4", "k5"], topic: bigTopic, subscription: "keyed", subscriptionType: "Key_Shared" });
    const stale = await waitFor(
      () => rowsOf(bigTopic),
      (rows) => rows.every((r) => r.staleSince !== null),
      "the wide topic to go stale",
    );
    const message = `the stats of ${bigTopic} are larger than the cluster's maxStatsBytes (${limit} bytes): not read`;
    expect(stale.every((r) => r.lastError === message)).toBe(true);
    // Its last known consumers are kept, never "no consumers".
    expect(stale.every((r) => (r.consumers as { name: string }[]).some((c) => c.name === "k1"))).toBe(true);

    // The cycle went on: the narrow topic is current, and its row says so after a few more cycles.
    const runs = await db.pollRun.count({ where: { clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (n) => n >= runs + 3,
      "three more cycles",
    );
    expect((await rowsOf(smallTopic)).every((r) => r.staleSince === null)).toBe(true);
    const lastRun = await db.pollRun.findFirstOrThrow({ where: { clusterId }, orderBy: { startedAt: "desc" }, select: { errors: true, topicCount: true } });
    expect(lastRun.errors).toEqual([{ target: bigTopic, message }]);
    expect(lastRun.topicCount).toBe(2);
  });
});
