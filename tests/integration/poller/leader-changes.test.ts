import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The poller against the real broker and PostgreSQL: a Failover subscription on a 2-partition
// topic with consumers w1, w2, w3 (p0 -> w1, p1 -> w2).

const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let topic: string;
const pollers: RunningPoller[] = [];
const clusterName = `poller-${Date.now().toString(36)}`;
let clusterId: number;
let cluster: ReturnType<typeof testClusterConfig>;

async function holders(): Promise<Record<number, string | null>> {
  const rows = await db.heldResource.findMany({
    where: { clusterId, subscription: "orders-workers", goneAt: null },
    select: { partition: true, holder: true },
  });
  return Object.fromEntries(rows.map((r) => [r.partition, r.holder]));
}

async function brokerHolders(): Promise<Record<number, string | null>> {
  const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5000 }, parseTopicName(topic)!.topic);
  return Object.fromEntries(
    Object.entries(stats.partitions).map(([name, s]) => [parseTopicName(name)!.partition, s.subscriptions["orders-workers"]?.activeConsumerName ?? null]),
  );
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  const scratch = await createTestNamespace("poller");
  cleanupNamespace = scratch.cleanup;
  topic = scratch.topic("orders");
  await createPartitionedTopic(broker.adminUrl, topic, 2);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["w1", "w2", "w3"], topic, subscription: "orders-workers", subscriptionType: "Failover" });
  cluster = testClusterConfig(clusterName, broker.adminUrl, scratch.namespace);
  clusterId = await registerCluster(db, cluster);
});

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
  await db?.$disconnect();
});

describe("the leader poller", () => {
  it("keeps the broker's active consumer of every partition", async () => {
    pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "poller-a" }));
    const expected = await brokerHolders();
    expect(Object.values(expected)).not.toContain(null);
    await waitFor(holders, (h) => JSON.stringify(h) === JSON.stringify(expected), "the poller to store the broker's leaders");
    const resource = await db.heldResource.findFirstOrThrow({
      where: { clusterId, partition: 0, subscription: "orders-workers" },
      select: { subscriptionType: true, consumers: true, lastObservedAt: true, staleSince: true },
    });
    expect(resource.subscriptionType).toBe("Failover");
    expect((resource.consumers as { name: string }[]).map((c) => c.name)).toEqual(["w1", "w2", "w3"]);
    expect(resource.staleSince).toBeNull();
  });

  it("records one change row, from the killed leader to the broker's new one", async () => {
    const before = await brokerHolders();
    const killed = before[0]!;
    await fleet.consumer(killed).kill();
    const after = await waitFor(brokerHolders, (h) => h[0] !== killed && h[0] !== null, "the broker to elect a new leader");
    const change = await waitFor(
      () =>
        db.holderChange.findMany({
          where: { clusterId, resource: { partition: 0 }, kind: "HOLDER_CHANGED" },
          select: {
            fromHolder: true,
            toHolder: true,
            cause: true,
            oldSeenAt: true,
            newSeenAt: true,
            pollerEpoch: true,
            predictedHolder: true,
            prediction: true,
          },
        }),
      (rows) => rows.length > 0,
      "a change row for partition 0",
    );
    expect(change).toHaveLength(1);
    expect(change[0]).toMatchObject({ fromHolder: killed, toHolder: after[0], cause: "CLIENT" });
    // Next in line, scored: the Failover rule without the killed leader named the broker's choice.
    expect(change[0]).toMatchObject({ predictedHolder: after[0], prediction: "CONFIRMED" });
    expect(change[0]!.oldSeenAt!.getTime()).toBeLessThan(change[0]!.newSeenAt.getTime());

    // More cycles change nothing: still exactly one row for that transition.
    const runsBefore = await db.pollRun.count({ where: { clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (n) => n >= runsBefore + 3,
      "three more poll cycles",
    );
    expect(await db.holderChange.count({ where: { clusterId, resource: { partition: 0 }, kind: "HOLDER_CHANGED" } })).toBe(1);
  });

  it("runs one poller per cluster: a second process stands by and takes over when the first stops, without duplicate rows", async () => {
    const logs: string[] = [];
    const second = startPoller({ databaseUrl, cluster, clusterId, pollerId: "poller-b", logs });
    pollers.push(second);
    await waitFor(
      async () => logs.join("\n"),
      (text) => text.includes("standing by"),
      "the second poller to stand by",
    );
    const lease = await db.pollerLease.findUniqueOrThrow({ where: { clusterId }, select: { pollerId: true, epoch: true } });
    expect(lease.pollerId).toBe("poller-a");

    const changesBefore = await db.holderChange.count({ where: { clusterId } });
    await pollers.shift()!.stop(); // poller-a goes away: its lock connection closes
    const taken = await waitFor(
      () => db.pollerLease.findUniqueOrThrow({ where: { clusterId }, select: { pollerId: true, epoch: true } }),
      (l) => l.pollerId === "poller-b",
      "poller-b to take over",
    );
    expect(taken.epoch).toBe(lease.epoch + 1n);
    // The new poller resumes from the saved state: its cycles find nothing new to record.
    await waitFor(
      () => db.pollRun.count({ where: { clusterId, pollerId: "poller-b" } }),
      (n) => n >= 3,
      "poller-b to run three cycles",
    );
    expect(await db.holderChange.count({ where: { clusterId } })).toBe(changesBefore);
  });
});
