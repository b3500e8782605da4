import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { ALL_LEADERS, listLeaders } from "@/lib/subscriptions/list-leaders";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { readHeldRows, writtenBetween } from "@/tests/support/held-rows";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The write path against the real broker: a steady cluster's cycles write no held_resource row,
// while the board still shows its resources observed by the latest cycle; a killed consumer's
// change is written at once.

const THRESHOLDS = { flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null };
const SUBSCRIPTION = "steady-workers";
const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let topic: string;
let poller: RunningPoller | null = null;
const clusterName = `steady-${Date.now().toString(36)}`;
let clusterId: number;

async function pollRunCount(): Promise<number> {
  return db.pollRun.count({ where: { clusterId } });
}

/** Waits for `cycles` more saved cycles; returns the start of the last of them. */
async function waitForCycles(cycles: number): Promise<Date> {
  const target = (await pollRunCount()) + cycles;
  await waitFor(pollRunCount, (count) => count >= target, `${cycles} more cycles`);
  const last = await db.pollRun.findFirstOrThrow({ where: { clusterId }, orderBy: { startedAt: "desc" }, select: { startedAt: true } });
  return last.startedAt;
}

async function brokerHolders(): Promise<Record<number, string | null>> {
  const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5000 }, parseTopicName(topic)!.topic);
  return Object.fromEntries(
    Object.entries(stats.partitions).map(([name, s]) => [parseTopicName(name)!.partition, s.subscriptions[SUBSCRIPTION]?.activeConsumerName ?? null]),
  );
}

async function storedHolders(): Promise<Record<number, string | null>> {
  const rows = await db.heldResource.findMany({ where: { clusterId, subscription: SUBSCRIPTION, goneAt: null }, select: { partition: true, holder: true } });
  return Object.fromEntries(rows.map((r) => [r.partition, r.holder]));
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  const scratch = await createTestNamespace("steady");
  cleanupNamespace = scratch.cleanup;
  topic = scratch.topic("orders");
  await createPartitionedTopic(broker.adminUrl, topic, 4);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["w1", "w2", "w3"], topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" });
  const cluster = testClusterConfig(clusterName, broker.adminUrl, scratch.namespace, 500);
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "steady-poller" });
  const expected = await brokerHolders();
  await waitFor(storedHolders, (h) => JSON.stringify(h) === JSON.stringify(expected), "the poller to store the broker's leaders");
});

afterAll(async () => {
  await poller?.stop();
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
  await db?.$disconnect();
});

describe("a steady cluster", () => {
  it("writes no held_resource row between cycles, and the board shows its resources observed by the latest one", async () => {
    await waitForCycles(2);
    const before = await readHeldRows(db, clusterId);
    expect(before.size).toBe(4);
    const lastCycleStart = await waitForCycles(8);
    const after = await readHeldRows(db, clusterId);
    expect(writtenBetween(before, after)).toEqual([]);
    for (const row of after.values()) {
      expect(row.staleSince).toBeNull();
      // Observed by one of the latest cycles, although its row was written before them.
      expect(Date.parse(row.lastObservedAt!)).toBeGreaterThanOrEqual(lastCycleStart.getTime() - 1_000);
    }
    const board = await listLeaders(db, { clusterNames: [clusterName], thresholds: THRESHOLDS, query: ALL_LEADERS });
    const partitions = board.subscriptions.flatMap((s) => s.partitions);
    expect(partitions).toHaveLength(4);
    expect(partitions.every((p) => p.staleSince === null && !p.flags.some((f) => f.rule === "stale"))).toBe(true);
    expect(board.clusters[0]).toMatchObject({ isSilent: false });
    expect(Date.parse(board.clusters[0]!.lastObservedAt!)).toBeGreaterThanOrEqual(lastCycleStart.getTime() - 1_000);
  });

  it("still writes a killed consumer's change at once", async () => {
    const before = await readHeldRows(db, clusterId);
    const killed = (await brokerHolders())[0]!;
    await fleet.consumer(killed).kill();
    const changes = await waitFor(
      () =>
        db.holderChange.findMany({ where: { clusterId, resource: { partition: 0 }, kind: "HOLDER_CHANGED" }, select: { fromHolder: true, toHolder: true } }),
      (rows) => rows.length > 0,
      "a change row for partition 0",
    );
    expect(changes[0]).toMatchObject({ fromHolder: killed });
    const after = await readHeldRows(db, clusterId);
    expect(writtenBetween(before, after)).toContain(`${topic}|${SUBSCRIPTION}|0`);
    expect((await storedHolders())[0]).toBe(changes[0]!.toHolder);
  });
});
