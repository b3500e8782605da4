import { describe, expect, it } from "vitest";

import { getPartitionedTopicStats, getTestBroker, getTopicStats, pickPartition, pickSubscription, pollUntil } from "@/tests/support/pulsar";
import { useScratchFleet } from "@/tests/support/scratch-fleet";
import { createNonPartitionedTopic, createPartitionedTopic } from "@/tools/pulsar/admin-setup";

// SCENARIOS.md, "an instance crashes": the consumers of the crashed instance vanish at once and
// each partition it led names its successor. The broker switches its stats immediately (the
// client hears about it activeConsumerFailoverDelayTimeMillis = 1 s later), so reads 100 ms apart
// see the change within a few reads. Bounded by a count of reads, not by a clock.
const MAX_READS = 30;

const env = useScratchFleet("failover");

describe("failover after a crash", () => {
  it("names a different active consumer for partition 0 once its leader's socket drops", async () => {
    const topic = env.scratch.topic("orders");
    await createPartitionedTopic(getTestBroker().adminUrl, topic, 4);
    await env.fleet.startGroup({ topic, subscription: "orders-workers", subscriptionType: "Failover", names: ["w1", "w2", "w3"] });
    const partition0 = async () => pickSubscription(pickPartition(await getPartitionedTopicStats(topic), topic, 0), "orders-workers");

    const { value: before } = await pollUntil(partition0, (s) => s.consumers.length === 3 && s.activeConsumerName !== undefined, {
      description: "a leader among three consumers on partition 0",
    });
    const leader = before.activeConsumerName!;
    await env.fleet.consumer(leader, "orders-workers").kill();

    const { value: after, attempts } = await pollUntil(partition0, (s) => s.activeConsumerName !== undefined && s.activeConsumerName !== leader, {
      maxAttempts: MAX_READS,
      description: `a successor to ${leader} on partition 0`,
    });
    expect(attempts).toBeLessThanOrEqual(MAX_READS);
    expect(after.consumers.map((c) => c.consumerName)).not.toContain(leader);
    // Sorted remaining names, partition 0 mod 2: the first of them.
    const remaining = ["w1", "w2", "w3"].filter((name) => name !== leader);
    expect(after.activeConsumerName).toBe(remaining[0]);
  });

  it("names one of the survivors on a non-partitioned topic", async () => {
    const topic = env.scratch.topic("payments");
    await createNonPartitionedTopic(getTestBroker().adminUrl, topic);
    await env.fleet.startGroup({ topic, subscription: "payments-workers", subscriptionType: "Failover", names: ["p1", "p2", "p3"] });
    const subscription = async () => pickSubscription(await getTopicStats(topic), "payments-workers");

    const { value: before } = await pollUntil(subscription, (s) => s.consumers.length === 3 && s.activeConsumerName !== undefined);
    const leader = before.activeConsumerName!;
    await env.fleet.consumer(leader, "payments-workers").kill();

    const { value: after } = await pollUntil(subscription, (s) => s.activeConsumerName !== undefined && s.activeConsumerName !== leader, {
      maxAttempts: MAX_READS,
      description: `a successor to ${leader}`,
    });
    // A hash ring of names, not sort order, picks the successor here: any survivor is right.
    expect(["p1", "p2", "p3"].filter((name) => name !== leader)).toContain(after.activeConsumerName);
    expect(after.consumers).toHaveLength(2);
  });

  it("a graceful stop also hands over, and a restarted consumer rejoins under its name", async () => {
    const topic = env.scratch.topic("refunds");
    await createNonPartitionedTopic(getTestBroker().adminUrl, topic);
    const [first] = await env.fleet.startGroup({ topic, subscription: "refunds-workers", subscriptionType: "Exclusive", names: ["r1"] });
    const subscription = async () => pickSubscription(await getTopicStats(topic), "refunds-workers");
    await pollUntil(subscription, (s) => s.activeConsumerName === "r1");

    await first!.stop();
    const { value: empty } = await pollUntil(subscription, (s) => s.consumers.length === 0, { maxAttempts: MAX_READS });
    expect(empty.activeConsumerName).toBeUndefined();

    await first!.start();
    const { value: back } = await pollUntil(subscription, (s) => s.activeConsumerName === "r1", { maxAttempts: MAX_READS });
    expect(back.consumers.map((c) => c.consumerName)).toEqual(["r1"]);
  });
});
