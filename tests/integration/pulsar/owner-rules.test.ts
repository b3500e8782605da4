import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { getPartitionedStats, getTopicStats } from "@/lib/pulsar/admin-client";
import { brokerLineOf } from "@/lib/pulsar/broker-line";
import {
  DEFAULT_PRIORITY_LEVEL,
  type FailoverConsumer,
  failoverConsumersFromStats,
  listFailoverTargets,
  pickActiveConsumer,
  predictAssignment,
  predictMovesOnJoin,
  predictMovesOnLeave,
  predictNextInLine,
} from "@/lib/pulsar/failover-rule";
import { type HashRangeSplit, signHashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { buildHashRangeSplit, parseConsumerRanges } from "@/lib/pulsar/hash-ranges";
import { findKeyOwner } from "@/lib/pulsar/key-owner";
import { type HashingScheme, routeKeyToPartition } from "@/lib/pulsar/producer-routing";
import type { RuleResult } from "@/lib/poller/contract/rule-result";
import type { SubscriptionStats } from "@/lib/pulsar/schemas";
import { parseStandaloneTopicName, type TopicName } from "@/lib/pulsar/topic-name";
import { openConsumer, openProducer, type PulsarConsumer, type PulsarProducer, type SubscriptionType } from "@/lib/pulsar/websocket";
import { readBrokerVersion, startBrokerOfVersion, type VersionedBroker } from "@/tests/support/broker-of-version";
import { pollUntil } from "@/tests/support/poll-until";
import { createNonPartitionedTopic, createPartitionedTopic, createScratchNamespace, type ScratchNamespace } from "@/tools/pulsar/admin-setup";
import { type BrokerHandle, startBroker } from "@/tools/pulsar/broker";

// Issue 21: Baton's computed owners checked against real brokers of both lines. Every assertion
// compares what a broker did (who received a key, which partition a message landed in, the stats'
// activeConsumerName) with what the rule computed. Waits are counts of reads, never durations.

const LINES = [
  { version: "4.2.4", line: "4.2" },
  { version: "3.0.7", line: "3.0" },
] as const;

const KEY_COUNT = 2_000;
const SEND_BATCH = 100;
/** 100 ms apart: up to two minutes for 2,000 messages on a busy 2-core machine. */
const DELIVERY_READS = 1_200;
const STATS_READS = 300;
/** The WebSocket consumers set no priority level: the Java client's default applies. */
const declaredDefaultPriority = () => DEFAULT_PRIORITY_LEVEL;

function unwrap<T>(result: RuleResult<T>): T {
  if (!result.ok) throw new Error(`cannot be computed (${result.reason}): ${result.detail}`);
  return result.value;
}

function topicNameOf(topic: string): TopicName {
  const name = parseStandaloneTopicName(topic);
  if (!name) throw new Error(`not a full topic name: ${topic}`);
  return name;
}

/** Which consumers received each key, and how many messages arrived. */
function createDeliveryLog() {
  let receiversByKey = new Map<string, Set<string>>();
  let received = 0;
  return {
    record(key: string | undefined, receiver: string) {
      received++;
      const receivers = receiversByKey.get(key ?? "") ?? new Set<string>();
      receivers.add(receiver);
      receiversByKey.set(key ?? "", receivers);
    },
    reset() {
      receiversByKey = new Map();
      received = 0;
    },
    get received() {
      return received;
    },
    receiversOf: (key: string) => [...(receiversByKey.get(key) ?? [])],
  };
}
type DeliveryLog = ReturnType<typeof createDeliveryLog>;

async function sendKeyed(producer: PulsarProducer, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += SEND_BATCH) {
    await Promise.all(keys.slice(i, i + SEND_BATCH).map((key) => producer.send({ payload: key, key })));
  }
}

describe.each(LINES)("owner rules on a real Pulsar $version broker", ({ version, line }) => {
  let broker: VersionedBroker;
  let scratch: ScratchNamespace;
  const clients: { close(): Promise<unknown> }[] = [];
  const adminTarget = () => ({ adminUrl: broker.adminUrl, requestTimeoutMs: 10_000 });

  beforeAll(async () => {
    broker = await startBrokerOfVersion(version);
    scratch = await createScratchNamespace(broker.adminUrl, "owner-rules");
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await scratch?.cleanup();
    await broker?.stop();
  });

  async function openRecordingConsumer(options: {
    topic: string;
    subscription: string;
    subscriptionType: SubscriptionType;
    consumerName: string;
    log?: DeliveryLog;
  }): Promise<PulsarConsumer> {
    const consumer = await openConsumer({ wsUrl: broker.wsUrl, receiverQueueSize: 1_000, ...options });
    clients.push(consumer);
    consumer.on("message", (message) => {
      options.log?.record(message.key, options.consumerName);
      return consumer.ack(message.messageId);
    });
    return consumer;
  }

  async function readSubscription(topic: string, subscription: string): Promise<SubscriptionStats | undefined> {
    return (await getTopicStats(adminTarget(), topicNameOf(topic))).subscriptions[subscription];
  }

  it("runs the line it claims to", async () => {
    expect(brokerLineOf(await readBrokerVersion(broker.adminUrl))).toBe(line);
  });

  it("Key_Shared: every key's computed owner is the consumer that received it, with 3 consumers and after a 4th joins", async () => {
    const topic = scratch.topic("clicks");
    const subscription = "clicks-readers";
    await createNonPartitionedTopic(broker.adminUrl, topic);
    const log = createDeliveryLog();
    for (const name of ["k-1", "k-2", "k-3"]) await openRecordingConsumer({ topic, subscription, subscriptionType: "Key_Shared", consumerName: name, log });
    const producer = await openProducer({ wsUrl: broker.wsUrl, topic });
    clients.push(producer);
    const keys = Array.from({ length: KEY_COUNT }, (_, i) => `user-${i}`);

    const splitOf = (stats: SubscriptionStats): HashRangeSplit | null =>
      buildHashRangeSplit(stats.consumers.map((c) => ({ name: c.consumerName ?? "", ranges: parseConsumerRanges(c) })));
    const hasRangesFor = (consumerCount: number) => (stats: SubscriptionStats | undefined) =>
      stats?.consumers.length === consumerCount && stats.consumers.every((c) => (parseConsumerRanges(c)?.length ?? 0) > 0);

    async function checkEveryKey(consumerCount: number): Promise<Record<string, number>> {
      const { value: before } = await pollUntil(() => readSubscription(topic, subscription), hasRangesFor(consumerCount), {
        maxAttempts: STATS_READS,
        description: `${consumerCount} Key_Shared consumers with hash ranges`,
      });
      log.reset();
      await sendKeyed(producer, keys);
      await pollUntil(
        async () => log.received,
        (received) => received >= KEY_COUNT,
        { maxAttempts: DELIVERY_READS, description: `${KEY_COUNT} deliveries` },
      );
      const { value: after } = await pollUntil(
        () => readSubscription(topic, subscription),
        (s) => s?.msgBacklog === 0,
        {
          maxAttempts: STATS_READS,
          description: "every message acked",
        },
      );
      // The split did not change while the keys were dispatched.
      expect(signHashRangeSplit(splitOf(after!))).toBe(signHashRangeSplit(splitOf(before!)));

      const split = splitOf(after!);
      const mismatches: string[] = [];
      const keysPerOwner: Record<string, number> = {};
      for (const key of keys) {
        const receivers = log.receiversOf(key);
        const owner = findKeyOwner({ key, line, subscriptionType: after!.type, keySharedMode: after!.keySharedMode, split });
        const computed = owner.ok ? owner.value.owner : `cannot (${owner.reason})`;
        if (receivers.length !== 1 || receivers[0] !== computed)
          mismatches.push(`${key}: received by ${receivers.join("+") || "nobody"}, computed ${computed}`);
        else keysPerOwner[computed] = (keysPerOwner[computed] ?? 0) + 1;
      }
      expect(mismatches.slice(0, 20)).toEqual([]);
      expect(Object.values(keysPerOwner).reduce((sum, n) => sum + n, 0)).toBe(KEY_COUNT);
      return keysPerOwner;
    }

    const withThree = await checkEveryKey(3);
    expect(Object.keys(withThree).sort()).toEqual(["k-1", "k-2", "k-3"]);

    await openRecordingConsumer({ topic, subscription, subscriptionType: "Key_Shared", consumerName: "k-4", log });
    const withFour = await checkEveryKey(4);
    expect(withFour["k-4"]).toBeGreaterThan(0);
  });

  it("Failover, partitioned: the active consumer per partition, what a 4th consumer moves, and who succeeds the leader of partition 0", async () => {
    const topic = scratch.topic("orders");
    const subscription = "orders-workers";
    const targets = listFailoverTargets(topic, 4);
    await createPartitionedTopic(broker.adminUrl, topic, 4);
    const consumers = new Map<string, PulsarConsumer>();
    const join = async (name: string) =>
      consumers.set(name, await openRecordingConsumer({ topic, subscription, subscriptionType: "Failover", consumerName: name }));
    for (const name of ["f-1", "f-2", "f-3"]) await join(name);

    const readPartitions = async () => {
      const stats = await getPartitionedStats(adminTarget(), topicNameOf(topic));
      return targets.map((t) => stats.partitions[t.topic]?.subscriptions[subscription]);
    };
    const settledWith = (names: string[]) => (partitions: (SubscriptionStats | undefined)[]) =>
      partitions.every(
        (s) =>
          s?.activeConsumerName !== undefined &&
          s.consumers
            .map((c) => c.consumerName)
            .sort()
            .join() === [...names].sort().join(),
      );
    const activesOf = (partitions: (SubscriptionStats | undefined)[]) => partitions.map((s) => s!.activeConsumerName ?? null);
    const consumersOf = (partitions: (SubscriptionStats | undefined)[]): FailoverConsumer[] =>
      failoverConsumersFromStats(partitions[0]!.consumers, declaredDefaultPriority);

    // Three consumers: the rule's pick is the stats' activeConsumerName on every partition.
    const { value: three } = await pollUntil(readPartitions, settledWith(["f-1", "f-2", "f-3"]), {
      maxAttempts: STATS_READS,
      description: "f-1..f-3 on 4 partitions",
    });
    const predictedThree = unwrap(predictAssignment(consumersOf(three), targets, { line })).map((p) => p.active);
    expect(predictedThree).toEqual(activesOf(three));

    // A 4th joins: exactly the predicted partitions change hands.
    const joinMoves = unwrap(predictMovesOnJoin(consumersOf(three), { name: "f-4", priorityLevel: DEFAULT_PRIORITY_LEVEL }, targets, { line }));
    await join("f-4");
    const { value: four } = await pollUntil(readPartitions, settledWith(["f-1", "f-2", "f-3", "f-4"]), {
      maxAttempts: STATS_READS,
      description: "f-4 on every partition",
    });
    const observedJoinMoves = targets
      .map((t, i) => ({ partitionIndex: t.partitionIndex, from: activesOf(three)[i], to: activesOf(four)[i] }))
      .filter((m) => m.from !== m.to);
    expect(observedJoinMoves).toEqual(joinMoves.map(({ partitionIndex, from, to }) => ({ partitionIndex, from, to })));

    // The leader of partition 0 leaves: the predicted successor takes it, and every partition
    // ends as predicted.
    const leader = activesOf(four)[0]!;
    const successor = unwrap(predictNextInLine(consumersOf(four), targets[0]!, { line }, leader));
    const leaveMoves = unwrap(predictMovesOnLeave(consumersOf(four), leader, targets, { line }));
    const expectedAfter = activesOf(four).map((active, i) => leaveMoves.find((m) => m.partitionIndex === i)?.to ?? active);
    await consumers.get(leader)!.close();
    const { value: afterLeave } = await pollUntil(readPartitions, (p) => p[0]?.activeConsumerName !== undefined && p[0].activeConsumerName !== leader, {
      maxAttempts: STATS_READS,
      description: `a successor to ${leader} on partition 0`,
    });
    expect(afterLeave[0]!.activeConsumerName).toBe(successor);
    const remaining = ["f-1", "f-2", "f-3", "f-4"].filter((name) => name !== leader);
    const { value: settled } = await pollUntil(readPartitions, settledWith(remaining), {
      maxAttempts: STATS_READS,
      description: `${leader} gone from every partition`,
    });
    expect(activesOf(settled)).toEqual(expectedAfter);
  });

  it("Failover, non-partitioned: the hash-ring pick among f-1..f-3, after f-0 joins, and after the active one leaves", async () => {
    const topic = scratch.topic("payments");
    const subscription = "payments-workers";
    const [target] = listFailoverTargets(topic, 0);
    await createNonPartitionedTopic(broker.adminUrl, topic);
    const consumers = new Map<string, PulsarConsumer>();
    const join = async (name: string) =>
      consumers.set(name, await openRecordingConsumer({ topic, subscription, subscriptionType: "Failover", consumerName: name }));
    const settledWith = (names: string[]) => (s: SubscriptionStats | undefined) =>
      s?.activeConsumerName !== undefined &&
      s.consumers
        .map((c) => c.consumerName)
        .sort()
        .join() === [...names].sort().join();
    const predictFor = (s: SubscriptionStats) =>
      unwrap(pickActiveConsumer(failoverConsumersFromStats(s.consumers, declaredDefaultPriority), target!, { line }));

    for (const name of ["f-1", "f-2", "f-3"]) await join(name);
    const { value: three } = await pollUntil(() => readSubscription(topic, subscription), settledWith(["f-1", "f-2", "f-3"]), { maxAttempts: STATS_READS });
    expect(predictFor(three!)).toBe(three!.activeConsumerName);

    await join("f-0");
    const { value: four } = await pollUntil(() => readSubscription(topic, subscription), settledWith(["f-0", "f-1", "f-2", "f-3"]), {
      maxAttempts: STATS_READS,
    });
    expect(predictFor(four!)).toBe(four!.activeConsumerName);

    const leader = four!.activeConsumerName!;
    const successor = unwrap(predictNextInLine(failoverConsumersFromStats(four!.consumers, declaredDefaultPriority), target!, { line }, leader));
    await consumers.get(leader)!.close();
    const remaining = ["f-0", "f-1", "f-2", "f-3"].filter((name) => name !== leader);
    const { value: after } = await pollUntil(() => readSubscription(topic, subscription), settledWith(remaining), { maxAttempts: STATS_READS });
    expect(after!.activeConsumerName).toBe(successor);
  });

  it.each([
    ["the default hashing scheme (JavaStringHash)", undefined, "JavaStringHash"],
    ["hashingScheme=Murmur3_32Hash", "Murmur3_32Hash", "Murmur3_32Hash"],
  ] as const)("producer routing with %s: every keyed message lands in the partition the rule computes", async (_label, queryScheme, scheme: HashingScheme) => {
    const partitions = 5;
    const topic = scratch.topic(`routed-${scheme.toLowerCase().replace(/_/g, "-")}`);
    await createPartitionedTopic(broker.adminUrl, topic, partitions);
    // One reader per partition: where a key arrives is where the producer routed it.
    const landedIn = new Map<string, Set<number>>();
    let received = 0;
    for (const { topic: partitionTopic, partitionIndex } of listFailoverTargets(topic, partitions)) {
      const consumer = await openConsumer({
        wsUrl: broker.wsUrl,
        topic: partitionTopic,
        subscription: "routing-check",
        subscriptionType: "Exclusive",
        consumerName: `p-${partitionIndex}`,
      });
      clients.push(consumer);
      consumer.on("message", (message) => {
        received++;
        landedIn.set(message.key ?? "", (landedIn.get(message.key ?? "") ?? new Set()).add(partitionIndex));
        return consumer.ack(message.messageId);
      });
    }
    const producer = await openProducer({ wsUrl: broker.wsUrl, topic, query: queryScheme ? { hashingScheme: queryScheme } : undefined });
    clients.push(producer);
    const keys = Array.from({ length: 500 }, (_, i) => `order-${i}`);
    await sendKeyed(producer, keys);
    await pollUntil(
      async () => received,
      (n) => n >= keys.length,
      { maxAttempts: DELIVERY_READS, description: `${keys.length} routed messages` },
    );

    const mismatches = keys
      .map((key) => ({ key, landed: [...(landedIn.get(key) ?? [])], computed: unwrap(routeKeyToPartition(key, partitions, scheme)) }))
      .filter(({ landed, computed }) => landed.length !== 1 || landed[0] !== computed);
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(new Set(keys.map((key) => unwrap(routeKeyToPartition(key, partitions, scheme)))).size).toBe(partitions);
  });
});

describe("PIP-392 on a real Pulsar 4.2.4 broker: activeConsumerFailoverConsistentHashing=true", () => {
  let broker: BrokerHandle;
  let scratch: ScratchNamespace;
  const clients: PulsarConsumer[] = [];

  beforeAll(async () => {
    broker = await startBroker({ version: "4.2.4", keepData: false, brokerConfig: { activeConsumerFailoverConsistentHashing: true } });
    scratch = await createScratchNamespace(broker.adminUrl, "owner-rules-pip392");
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await scratch?.cleanup();
    await broker?.stop();
  });

  it("partitions take the hash-ring pick of their own names, with 3 consumers and after a 4th joins", async () => {
    const topic = scratch.topic("orders");
    const subscription = "orders-workers";
    const partitions = 8;
    const targets = listFailoverTargets(topic, partitions);
    await createPartitionedTopic(broker.adminUrl, topic, partitions);
    const readActives = async () => {
      const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 10_000 }, topicNameOf(topic));
      return targets.map((t) => stats.partitions[t.topic]?.subscriptions[subscription]);
    };
    for (const names of [
      ["f-1", "f-2", "f-3"],
      ["f-0", "f-1", "f-2", "f-3"],
    ]) {
      for (const name of names.filter((n) => !clients.some((c) => c.consumerName === n))) {
        clients.push(await openConsumer({ wsUrl: broker.wsUrl, topic, subscription, subscriptionType: "Failover", consumerName: name }));
      }
      const { value } = await pollUntil(readActives, (p) => p.every((s) => s?.activeConsumerName !== undefined && s.consumers.length === names.length), {
        maxAttempts: STATS_READS,
        description: `${names.join(", ")} on ${partitions} partitions`,
      });
      const consumers = failoverConsumersFromStats(value[0]!.consumers, declaredDefaultPriority);
      const predicted = unwrap(predictAssignment(consumers, targets, { line: "4.2", isConsistentHashingForPartitions: true }));
      expect(predicted.map((p) => p.active)).toEqual(value.map((s) => s!.activeConsumerName));
    }
  });
});
