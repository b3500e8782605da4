import { describe, expect, it } from "vitest";

import { openConsumer, WebSocketUpgradeError } from "@/lib/pulsar/websocket";
import { getPartitionedTopicStats, getTestBroker, getTopicStats, pickPartition, pickSubscription, pollUntil } from "@/tests/support/pulsar";
import { useScratchFleet } from "@/tests/support/scratch-fleet";
import { createNonPartitionedTopic, createPartitionedTopic } from "@/tools/pulsar/admin-setup";

// The names Baton shows are the names the broker reports: a consumer named over the WebSocket API
// must come back under that name in activeConsumerName and consumers[].consumerName.
const WORKERS = ["w1", "w2", "w3"] as const;

const env = useScratchFleet("names");

const sortedNames = (subscription: { consumers: { consumerName?: string }[] }) => subscription.consumers.map((consumer) => consumer.consumerName).sort();

describe("consumer names over WebSocket", () => {
  it("Failover on a partitioned topic: every partition lists w1..w3 and names its leader by sorted name, partition mod n", async () => {
    const topic = env.scratch.topic("orders");
    await createPartitionedTopic(getTestBroker().adminUrl, topic, 4);
    await env.fleet.startGroup({ topic, subscription: "orders-workers", subscriptionType: "Failover", names: WORKERS });

    const { value: stats } = await pollUntil(
      () => getPartitionedTopicStats(topic),
      (s) => [0, 1, 2, 3].every((p) => pickPartition(s, topic, p).subscriptions["orders-workers"]?.consumers.length === 3),
      { description: "three consumers on every partition" },
    );
    const leaders = [0, 1, 2, 3].map((p) => pickSubscription(pickPartition(stats, topic, p), "orders-workers"));
    for (const subscription of leaders) expect(sortedNames(subscription)).toEqual([...WORKERS]);
    expect(leaders.map((s) => s.activeConsumerName)).toEqual(["w1", "w2", "w3", "w1"]);
    // The partitioned aggregate drops the active consumer: it must be read per partition.
    expect(pickSubscription(stats, "orders-workers").activeConsumerName).toBeUndefined();
  });

  it("Failover on a non-partitioned topic: the broker lists w1..w3 and names one of them active", async () => {
    const topic = env.scratch.topic("payments");
    await createNonPartitionedTopic(getTestBroker().adminUrl, topic);
    await env.fleet.startGroup({ topic, subscription: "payments-workers", subscriptionType: "Failover", names: WORKERS });

    const { value: stats } = await pollUntil(
      () => getTopicStats(topic),
      (s) => s.subscriptions["payments-workers"]?.consumers.length === 3,
      { description: "three consumers" },
    );
    const subscription = pickSubscription(stats, "payments-workers");
    expect(sortedNames(subscription)).toEqual([...WORKERS]);
    expect(WORKERS).toContain(subscription.activeConsumerName);
  });

  it("Exclusive: the holder is the active consumer and a second consumer is refused with HTTP 409", async () => {
    const topic = env.scratch.topic("audit");
    await env.fleet.startConsumer({ name: "solo", topic, subscription: "audit-writer", subscriptionType: "Exclusive" });

    const second = await openConsumer({
      wsUrl: getTestBroker().wsUrl,
      topic,
      subscription: "audit-writer",
      subscriptionType: "Exclusive",
      consumerName: "standby",
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(WebSocketUpgradeError);
    expect((second as WebSocketUpgradeError).status).toBe(409);
    expect((second as WebSocketUpgradeError).detail).toContain("Exclusive consumer is already connected");

    const subscription = pickSubscription(await getTopicStats(topic), "audit-writer");
    expect(subscription.activeConsumerName).toBe("solo");
    expect(sortedNames(subscription)).toEqual(["solo"]);
  });

  it("Key_Shared: every consumer is listed by name with its hash ranges and no active consumer", async () => {
    const topic = env.scratch.topic("clicks");
    await env.fleet.startGroup({ topic, subscription: "clicks-readers", subscriptionType: "Key_Shared", names: ["k1", "k2", "k3"] });

    const { value: stats } = await pollUntil(
      () => getTopicStats(topic),
      (s) => s.subscriptions["clicks-readers"]?.consumers.length === 3,
      { description: "three consumers" },
    );
    const subscription = pickSubscription(stats, "clicks-readers");
    expect(sortedNames(subscription)).toEqual(["k1", "k2", "k3"]);
    expect(subscription.activeConsumerName).toBeUndefined();
    // Pulsar 4.x: ranges as [start, end] pairs over 0..65535, disjoint across consumers.
    const ranges = subscription.consumers.flatMap((consumer) => consumer.keyHashRangeArrays ?? []);
    for (const consumer of subscription.consumers) expect(consumer.keyHashRangeArrays?.length).toBeGreaterThan(0);
    const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
    for (const [index, [start, end]] of sorted.entries()) {
      expect(start).toBeLessThanOrEqual(end);
      expect(end).toBeLessThanOrEqual(65_535);
      if (index > 0) expect(start).toBeGreaterThan(sorted[index - 1]![1]);
    }
  });
});
