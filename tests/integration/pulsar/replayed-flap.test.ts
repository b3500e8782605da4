import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { detectChanges } from "@/lib/sources/pulsar/detect-changes";
import type { Observation } from "@/lib/poller/contract/partition-state";
import { observeTopicStats } from "@/lib/sources/pulsar/observe-topic";
import { createPartitionedTopic, createSubscription } from "@/tools/pulsar/admin-setup";
import { pollUntil } from "@/tests/support/poll-until";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";

// A Failover subscription whose consumer set churns between two polls while the holder stays
// connected (a rolling deployment: pod-3 joins, pod-2 leaves), against the real broker. With
// pod-1, pod-2 and pod-4 on a 4-partition topic, partition 3 goes to sorted[3 % 3] = pod-1; pod-3
// joining hands it to sorted[3 % 4] = pod-4, pod-2 leaving back to pod-1. The two polls both see
// pod-1 on the same connection: the hand-over and back is only in the sets in between.

const broker = getTestBroker();
const SUBSCRIPTION = "rolling";
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let topic: string;

async function observePartition(partition: number): Promise<Observation> {
  const name = parseTopicName(topic)!;
  const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5_000 }, name.topic);
  const [, partitionStats] = Object.entries(stats.partitions).find(([full]) => parseTopicName(full)!.partition === partition)!;
  return observeTopicStats(name.topic, partition, partitionStats).find((observation) => observation.subscription === SUBSCRIPTION)!;
}

beforeAll(async () => {
  const scratch = await createTestNamespace("replay");
  cleanupNamespace = scratch.cleanup;
  topic = scratch.topic("orders");
  await createPartitionedTopic(broker.adminUrl, topic, 4);
  // The subscription made through the admin API first: the broker loads the four partitions
  // then, not while the first consumer's WebSocket waits to open (slow on a loaded machine).
  await pollUntil(
    () =>
      createSubscription(broker.adminUrl, topic, SUBSCRIPTION).then(
        () => true,
        () => false,
      ),
    Boolean,
    { description: "the subscription created", maxAttempts: 20, intervalMs: 500 },
  );
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["pod-1", "pod-2", "pod-4"], topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" });
}, 300_000);

afterAll(async () => {
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
});

describe("a consumer set that churns within one poll", () => {
  it("is replayed through the rule: pod-1 -> pod-4 -> pod-1 on partition 3 is a replayed flap, certain", async () => {
    const { value: before } = await pollUntil(
      () => observePartition(3),
      (o) => o?.holder === "pod-1" && o.consumers.length === 3,
      { description: "pod-1 active on partition 3 of three consumers" },
    );
    const ctx = (at: string) => ({ pollAt: at, isBrokerSide: false });
    const first = detectChanges(undefined, before, ctx(new Date().toISOString()));

    await fleet.startConsumer({ name: "pod-3", topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" });
    // The broker really handed it over: what the poll after the churn cannot see.
    await pollUntil(
      () => observePartition(3),
      (o) => o?.holder === "pod-4",
      { description: "the broker to make pod-4 active on partition 3" },
    );
    await fleet.consumer("pod-2").kill();
    const { value: after } = await pollUntil(
      () => observePartition(3),
      (o) => o?.holder === "pod-1" && o.consumers.length === 3,
      { description: "pod-1 active again, pod-2 gone" },
    );
    expect(after.consumers.find((c) => c.name === "pod-1")!.connectedSince).toBe(before.consumers.find((c) => c.name === "pod-1")!.connectedSince);

    const { changes } = detectChanges(first.next, after, ctx(new Date().toISOString()));
    expect(changes.map((change) => change.kind).sort()).toEqual(["CONSUMERS_CHANGED", "REPLAYED_FLAP"]);
    expect(changes.find((change) => change.kind === "REPLAYED_FLAP")).toMatchObject({
      fromHolder: "pod-1",
      toHolder: "pod-1",
      details: { via: ["pod-4"], isCertain: true, added: ["pod-3"], removed: ["pod-2"] },
    });
  });
});
