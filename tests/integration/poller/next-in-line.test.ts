import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { listLeaders, ALL_LEADERS } from "@/lib/subscriptions/list-leaders";
import { listPredictionScores } from "@/lib/clusters/list-prediction-scores";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// Next in line, checked against the real broker: the prediction the board shows before a kill of
// the active consumer is compared with the leader the broker then elects, and Baton's own score
// counts it. A second subscription gives one consumer a priority level Baton does not know (it
// assumes the Java client's default for all): the broker skips the lower-priority standby that
// Baton's rule names, and the score records the prediction as wrong instead of hiding it.

const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
const THRESHOLDS = { flapChanges: 4, flapWindowMs: 600_000, stuckSamples: 3, recoveredAfterMs: null };
let db: Db;
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let ordersTopic: string;
let ranksTopic: string;
let poller: RunningPoller | undefined;
const clusterName = `next-${Date.now().toString(36)}`;
let clusterId: number;

async function brokerActive(topic: string, subscription: string, partition: number): Promise<string | null> {
  const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5000 }, parseTopicName(topic)!.topic);
  const entry = Object.entries(stats.partitions).find(([name]) => parseTopicName(name)!.partition === partition);
  return entry?.[1].subscriptions[subscription]?.activeConsumerName ?? null;
}

/** The board's row of one partition, as the read API answers it. */
async function boardRow(topic: string, subscription: string, partition: number) {
  const board = await listLeaders(db, { clusterNames: [clusterName], thresholds: THRESHOLDS, query: { ...ALL_LEADERS, topic, subscription } });
  return board.subscriptions[0]?.partitions.find((p) => p.partition === partition);
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  const scratch = await createTestNamespace("next");
  cleanupNamespace = scratch.cleanup;
  ordersTopic = scratch.topic("orders");
  ranksTopic = scratch.topic("ranks");
  await createPartitionedTopic(broker.adminUrl, ordersTopic, 2);
  await createPartitionedTopic(broker.adminUrl, ranksTopic, 1);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["n1", "n2", "n3"], topic: ordersTopic, subscription: "orders-next", subscriptionType: "Failover" });
  // r-a and r-c at the default level 0, r-b at 1: the broker elects among r-a and r-c only.
  await fleet.startGroup({ names: ["r-a", "r-c"], topic: ranksTopic, subscription: "ranks-next", subscriptionType: "Failover" });
  await fleet.startGroup({ names: ["r-b"], topic: ranksTopic, subscription: "ranks-next", subscriptionType: "Failover", priorityLevel: 1 });
  const cluster = testClusterConfig(clusterName, broker.adminUrl, scratch.namespace);
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "next-poller" });
});

afterAll(async () => {
  await poller?.stop();
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
  await db?.cluster.deleteMany({ where: { name: clusterName } });
  await db?.$disconnect();
});

describe("next in line against the real broker", () => {
  it("predicts the leader the broker elects when the active consumer is killed, and scores it confirmed", async () => {
    const active = await waitFor(
      () => brokerActive(ordersTopic, "orders-next", 0),
      (a) => a !== null,
      "the broker to elect a leader",
    );
    const before = await waitFor(
      () => boardRow(ordersTopic, "orders-next", 0),
      (row) => row?.holder === active && row.consumerCount === 3,
      "the board to show partition 0 with its three consumers",
    );
    expect(before!.next.reason).toBeNull();
    const predicted = before!.next.holder;
    expect(predicted).not.toBeNull();
    expect(predicted).not.toBe(active);

    await fleet.consumer(active!).kill();
    const elected = await waitFor(
      () => brokerActive(ordersTopic, "orders-next", 0),
      (a) => a !== null && a !== active,
      "the broker to elect a new leader",
    );
    expect(elected).toBe(predicted);

    const [change] = await waitFor(
      () =>
        db.holderChange.findMany({
          where: { clusterId, kind: "HOLDER_CHANGED", resource: { topic: ordersTopic, partition: 0 } },
          select: { toHolder: true, predictedHolder: true, prediction: true },
        }),
      (rows) => rows.length > 0,
      "the poller to record the change on partition 0",
    );
    expect(change).toEqual({ toHolder: elected, predictedHolder: predicted, prediction: "CONFIRMED" });
    // Partition 1's holder stayed connected while the group shrank: a reshuffle, which "next in
    // line" does not cover, so it is not scored.
    const scores = await listPredictionScores(db, [clusterName]);
    expect(scores.get(clusterName)).toEqual({ predicted: 1, confirmed: 1, wrong: 0, notPredicted: 0 });
  });

  it("records a prediction the broker does not follow as wrong, and counts it", async () => {
    const before = await waitFor(
      () => boardRow(ranksTopic, "ranks-next", 0),
      (row) => row?.holder === "r-a" && row.consumerCount === 3,
      "the board to show r-a holding with r-b and r-c standing by",
    );
    // Baton sorts r-a, r-b, r-c at one level: r-b is next. The broker knows r-b's level is 1.
    expect(before!.next).toEqual({ holder: "r-b", reason: null, detail: null });

    await fleet.consumer("r-a").kill();
    const elected = await waitFor(
      () => brokerActive(ranksTopic, "ranks-next", 0),
      (a) => a !== null && a !== "r-a",
      "the broker to elect a new leader",
    );
    expect(elected).toBe("r-c");

    const [change] = await waitFor(
      () =>
        db.holderChange.findMany({
          where: { clusterId, kind: "HOLDER_CHANGED", resource: { topic: ranksTopic } },
          select: { fromHolder: true, toHolder: true, predictedHolder: true, prediction: true },
        }),
      (rows) => rows.length > 0,
      "the poller to record the change",
    );
    expect(change).toEqual({ fromHolder: "r-a", toHolder: "r-c", predictedHolder: "r-b", prediction: "WRONG" });
    const scores = await listPredictionScores(db, [clusterName]);
    expect(scores.get(clusterName)).toEqual({ predicted: 2, confirmed: 1, wrong: 1, notPredicted: 0 });
    const board = await listLeaders(db, { clusterNames: [clusterName], thresholds: THRESHOLDS, query: ALL_LEADERS });
    expect(board.clusters[0]!.predictions).toEqual({ predicted: 2, confirmed: 1, wrong: 1, notPredicted: 0 });
  });
});
