import { describe, expect, it } from "vitest";

import type { FleetConsumer } from "@/tools/fleet/fleet-consumer";
import { makeKeys } from "@/tools/fleet/keyed-producer";
import { getPartitionedTopicStats, getTestBroker, getTopicStats, pickSubscription, pollUntil } from "@/tests/support/pulsar";
import { useScratchFleet } from "@/tests/support/scratch-fleet";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";

const env = useScratchFleet("keyed");

const totalReceived = (members: FleetConsumer[]) => members.reduce((sum, member) => sum + member.counts.received, 0);
const totalAcked = (members: FleetConsumer[]) => members.reduce((sum, member) => sum + member.counts.acked, 0);

/** Each key was delivered to exactly one consumer. */
function expectEachKeyOnOneConsumer(members: FleetConsumer[], keys: string[]): void {
  for (const key of keys) {
    const receivers = members.filter((member) => (member.counts.byKey.get(key) ?? 0) > 0).map((member) => member.name);
    expect(receivers, `receivers of ${key}`).toHaveLength(1);
  }
}

describe("keyed messages through the fleet", () => {
  it("Failover on a partitioned topic: every message arrives once, is acked, and the backlog returns to 0", async () => {
    const topic = env.scratch.topic("orders");
    await createPartitionedTopic(getTestBroker().adminUrl, topic, 4);
    const members = await env.fleet.startGroup({ topic, subscription: "orders-workers", subscriptionType: "Failover", names: ["w1", "w2"] });
    const keys = makeKeys(8, "order");
    const producer = await env.fleet.openProducer({ topic, keys });

    const ids = await producer.publish(200);
    expect(new Set(ids).size).toBe(200);

    await pollUntil(
      async () => totalAcked(members),
      (acked) => acked >= 200,
      { description: "200 acks" },
    );
    expect(totalReceived(members)).toBe(200);
    expectEachKeyOnOneConsumer(members, keys);
    const { value: stats } = await pollUntil(
      () => getPartitionedTopicStats(topic),
      (s) => pickSubscription(s, "orders-workers").msgBacklog === 0,
      { description: "an empty backlog" },
    );
    expect(pickSubscription(stats, "orders-workers").msgBacklog).toBe(0);
  });

  it("Key_Shared: each key goes to one consumer, and all are acked", async () => {
    const topic = env.scratch.topic("clicks");
    const members = await env.fleet.startGroup({ topic, subscription: "clicks-readers", subscriptionType: "Key_Shared", names: ["k1", "k2", "k3"] });
    const keys = makeKeys(12, "user");
    const producer = await env.fleet.openProducer({ topic, keys });

    await producer.publish(120);

    await pollUntil(
      async () => totalAcked(members),
      (acked) => acked >= 120,
      { description: "120 acks" },
    );
    expectEachKeyOnOneConsumer(members, keys);
    // With 12 keys over 3 consumers, more than one consumer gets work.
    expect(members.filter((member) => member.counts.received > 0).length).toBeGreaterThan(1);
    await pollUntil(
      () => getTopicStats(topic),
      (s) => pickSubscription(s, "clicks-readers").msgBacklog === 0,
      {
        description: "an empty backlog",
      },
    );
  });

  it("a handler can nack: the message comes back with a higher redelivery count and is then acked", async () => {
    const topic = env.scratch.topic("retries");
    const redeliveries: number[] = [];
    const member = await env.fleet.startConsumer({
      name: "retrier",
      topic,
      subscription: "retries-worker",
      subscriptionType: "Shared",
      negativeAckRedeliveryDelayMs: 100,
      ack: (message) => {
        redeliveries.push(message.redeliveryCount);
        return message.redeliveryCount === 0 ? "nack" : "ack";
      },
    });
    const producer = await env.fleet.openProducer({ topic, keys: ["a", "b"] });
    await producer.publish(10);

    await pollUntil(
      async () => member.counts.acked,
      (acked) => acked >= 10,
      { description: "10 acks after nacks" },
    );
    expect(member.counts.nacked).toBe(10);
    expect(redeliveries.filter((count) => count > 0)).toHaveLength(10);
    await pollUntil(
      () => getTopicStats(topic),
      (s) => pickSubscription(s, "retries-worker").msgBacklog === 0,
      {
        description: "an empty backlog",
      },
    );
  });
});
