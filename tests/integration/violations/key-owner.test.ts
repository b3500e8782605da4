import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import type { HashingScheme } from "@/lib/pulsar/producer-routing";
import { openConsumer, openProducer, type PulsarConsumer, type PulsarProducer, type SubscriptionType } from "@/lib/pulsar/websocket";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { computeOwners } from "@/lib/violations/queries/read-owner-history";
import { startBrokerOfVersion, type VersionedBroker } from "@/tests/support/broker-of-version";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { createNonPartitionedTopic, createPartitionedTopic, createScratchNamespace, type ScratchNamespace, topicPath } from "@/tools/pulsar/admin-setup";

// Baton's computed owners (from the history its own poller stored) against what real brokers of
// both lines did: which consumer received each key. Waits are counts of reads, never durations.

const LINES = ["4.2.4", "3.0.7"] as const;
const KEY_COUNT = 400;
const WINDOW_MS = 2_000;
const databaseUrl = getTestDatabaseUrl();

type Receipt = { receiver: string; atMs: number };

function ownerName(owner: ViolationOwner): string {
  return owner.isComputed ? (owner.owner ?? "nobody") : `cannot (${owner.reason})`;
}

describe.each(LINES)("key owners from Baton's history on a real Pulsar %s broker", (version) => {
  let broker: VersionedBroker;
  let scratch: ScratchNamespace;
  let db: Db;
  let poller: RunningPoller;
  let clusterId: number;
  const clients: { close(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    broker = await startBrokerOfVersion(version);
    scratch = await createScratchNamespace(broker.adminUrl, "key-owner");
    db = createTestDb(databaseUrl);
    const cluster = testClusterConfig(`key-owner-${version.replaceAll(".", "-")}-${Date.now().toString(36)}`, broker.adminUrl, scratch.namespace);
    clusterId = await registerCluster(db, cluster);
    poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: `key-owner-${version}` });
  });

  afterAll(async () => {
    await poller?.stop();
    await Promise.all(clients.map((client) => client.close()));
    await scratch?.cleanup();
    await db?.cluster.deleteMany({ where: { id: clusterId } });
    await db?.$disconnect();
    await broker?.stop();
  });

  /** A consumer that records, per key, who received it first and when. */
  async function openRecordingConsumer(
    topic: string,
    subscription: string,
    subscriptionType: SubscriptionType,
    consumerName: string,
    receipts: Map<string, Receipt[]>,
  ): Promise<PulsarConsumer> {
    const consumer = await openConsumer({ wsUrl: broker.wsUrl, topic, subscription, subscriptionType, consumerName, receiverQueueSize: 1_000 });
    clients.push(consumer);
    consumer.on("message", (message) => {
      const key = message.key ?? "";
      receipts.set(key, [...(receipts.get(key) ?? []), { receiver: consumerName, atMs: Date.now() }]);
      return consumer.ack(message.messageId);
    });
    return consumer;
  }

  async function sendKeyed(producer: PulsarProducer, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 100) await Promise.all(keys.slice(i, i + 100).map((key) => producer.send({ payload: key, key })));
  }

  /** The consumer names of the subscription's current split, as Baton stored it. */
  async function storedSplitConsumers(topic: string, subscription: string): Promise<string[]> {
    const rows = await db.$queryRaw<{ split: { consumers: { consumer: string }[] } }[]>`
      select s.split from key_shared_range_split s join held_resource r on r.id = s.resource_id
      where r.cluster_id = ${clusterId} and r.topic = ${topic} and r.subscription = ${subscription} and s.valid_to is null`;
    return rows.flatMap((r) => r.split.consumers.map((c) => c.consumer)).sort();
  }

  /** Sends every key once and compares each receiver with Baton's owner at the receipt's time. */
  async function checkEveryKey(
    topic: string,
    subscription: string,
    producer: PulsarProducer,
    keys: string[],
    receipts: Map<string, Receipt[]>,
    routing: Record<string, HashingScheme> = {},
  ) {
    receipts.clear();
    await sendKeyed(producer, keys);
    await waitFor(
      async () => receipts.size,
      (n) => n >= keys.length,
      `${keys.length} keys delivered`,
      600,
      100,
    );
    const subjects = keys.map((key) => ({ key, topic, subscription, partition: null, observedAt: new Date(receipts.get(key)![0]!.atMs).toISOString() }));
    const owners = await computeOwners(db, subjects, { windowMs: WINDOW_MS, producerRouting: routing });
    const mismatches: string[] = [];
    const keysPerOwner: Record<string, number> = {};
    keys.forEach((key, i) => {
      const receivers = [...new Set(receipts.get(key)!.map((r) => r.receiver))];
      const computed = ownerName(owners[i]!);
      if (receivers.length !== 1 || receivers[0] !== computed) mismatches.push(`${key}: received by ${receivers.join("+")}, Baton computed ${computed}`);
      else keysPerOwner[computed] = (keysPerOwner[computed] ?? 0) + 1;
    });
    expect(mismatches.slice(0, 20)).toEqual([]);
    return { keysPerOwner, owners };
  }

  it("Key_Shared: every key's owner from the stored splits is the consumer that received it, before and after a consumer joins", async () => {
    const topic = scratch.topic("clicks");
    const subscription = "clicks-readers";
    await createNonPartitionedTopic(broker.adminUrl, topic);
    const receipts = new Map<string, Receipt[]>();
    for (const name of ["k-1", "k-2", "k-3"]) await openRecordingConsumer(topic, subscription, "Key_Shared", name, receipts);
    const producer = await openProducer({ wsUrl: broker.wsUrl, topic });
    clients.push(producer);
    const keys = Array.from({ length: KEY_COUNT }, (_, i) => `user-${i}`);

    await waitFor(
      () => storedSplitConsumers(topic, subscription),
      (names) => names.join() === "k-1,k-2,k-3",
      "Baton to store the split of k-1..k-3",
    );
    const three = await checkEveryKey(topic, subscription, producer, keys, receipts);
    expect(Object.keys(three.keysPerOwner).sort()).toEqual(["k-1", "k-2", "k-3"]);

    await openRecordingConsumer(topic, subscription, "Key_Shared", "k-4", receipts);
    await waitFor(
      () => storedSplitConsumers(topic, subscription),
      (names) => names.join() === "k-1,k-2,k-3,k-4",
      "Baton to store the split with k-4",
    );
    const four = await checkEveryKey(topic, subscription, producer, keys, receipts);
    expect(four.keysPerOwner["k-4"]).toBeGreaterThan(0);

    // The keys k-4 took: their owner changed when it joined, and the history says so.
    const moved = keys.filter((_, i) => ownerName(four.owners[i]!) === "k-4");
    const [beforeJoin] = await db.$queryRaw<{ valid_from: Date }[]>`
      select s.valid_from from key_shared_range_split s join held_resource r on r.id = s.resource_id
      where r.cluster_id = ${clusterId} and r.topic = ${topic} and s.valid_to is null`;
    const atJoin = beforeJoin!.valid_from.getTime();
    const [aroundJoin] = await computeOwners(db, [{ key: moved[0]!, topic, subscription, partition: null, observedAt: new Date(atJoin).toISOString() }], {
      windowMs: WINDOW_MS,
      producerRouting: {},
    });
    expect(aroundJoin).toMatchObject({ isComputed: true, owner: "k-4", change: { to: "k-4", joined: ["k-4"], left: [] } });
  });

  it.each([
    ["the default hashing scheme (JavaStringHash)", undefined],
    ["hashingScheme=Murmur3_32Hash", "Murmur3_32Hash"],
  ] as const)("Failover without a partition, %s: the routed partition's leader is the consumer that received each key", async (_label, scheme) => {
    const topic = scratch.topic(`orders-${scheme ?? "default"}`.toLowerCase().replaceAll("_", "-"));
    const subscription = "orders-workers";
    const partitions = 3;
    await createPartitionedTopic(broker.adminUrl, topic, partitions);
    const receipts = new Map<string, Receipt[]>();
    for (const name of ["f-1", "f-2"]) await openRecordingConsumer(topic, subscription, "Failover", name, receipts);
    const producer = await openProducer({ wsUrl: broker.wsUrl, topic, query: scheme ? { hashingScheme: scheme } : undefined });
    clients.push(producer);
    await waitFor(
      () => db.heldResource.findMany({ where: { clusterId, topic, subscription, goneAt: null }, select: { holder: true } }),
      (rows) => rows.length === partitions && rows.every((r) => r.holder !== null),
      "Baton to store a leader on every partition",
    );
    // The consumers reach the partitions one after another, so a poll in between stores a later
    // partition a cycle after the others: within the window of that first sight Baton rightly
    // cannot tell it from a grown partition count. Keys are sent once that window has passed.
    const [pause] = await db.$queryRaw<{ wait_ms: number }[]>`
      select greatest(0, extract(epoch from (max(first_seen_at) - now())) * 1000 + ${WINDOW_MS + 200})::float8 as wait_ms
      from held_resource where cluster_id = ${clusterId} and topic = ${topic} and subscription = ${subscription}`;
    await new Promise((resolve) => setTimeout(resolve, pause!.wait_ms));
    const keys = Array.from({ length: 200 }, (_, i) => `order-${i}`);
    const routing: Record<string, HashingScheme> = scheme ? { [topic]: scheme } : {};
    const { owners } = await checkEveryKey(topic, subscription, producer, keys, receipts, routing);
    expect(owners.every((o) => o.isComputed && o.rule === "failover" && o.isPartitionRouted)).toBe(true);
    expect(new Set(owners.map((o) => (o.isComputed ? o.partition : -2))).size).toBe(partitions);

    // The partition count grows: a key's partition is no longer known around that time.
    const response = await fetch(`${broker.adminUrl}${topicPath(topic)}/partitions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(partitions + 1),
    });
    expect(response.status).toBeLessThan(300);
    await openRecordingConsumer(`${topic}-partition-${partitions}`, subscription, "Failover", "f-3", receipts);
    const added = await waitFor(
      () => db.heldResource.findFirst({ where: { clusterId, topic, subscription, partition: partitions }, select: { firstSeenAt: true } }),
      (row) => row !== null,
      "Baton to see the added partition",
    );
    const [grown] = await computeOwners(db, [{ key: keys[0]!, topic, subscription, partition: null, observedAt: added!.firstSeenAt.toISOString() }], {
      windowMs: WINDOW_MS,
      producerRouting: routing,
    });
    expect(grown).toMatchObject({ isComputed: false, reason: "partition-count-changed" });
  });

  it("bad input: a Shared subscription and a key whose bytes are unknown answer a reason, never an owner", async () => {
    const topic = scratch.topic("shared");
    await createNonPartitionedTopic(broker.adminUrl, topic);
    await openRecordingConsumer(topic, "shared-readers", "Shared", "s-1", new Map());
    await waitFor(
      () => db.heldResource.findFirst({ where: { clusterId, topic, subscription: "shared-readers" }, select: { subscriptionType: true } }),
      (row) => row?.subscriptionType === "Shared",
      "Baton to see the Shared subscription",
    );
    const clicks = scratch.topic("clicks");
    const now = new Date().toISOString();
    const owners = await computeOwners(
      db,
      [
        { key: "user-1", topic, subscription: "shared-readers", partition: null, observedAt: now },
        { key: "bad-\uFFFD-key", topic: clicks, subscription: "clicks-readers", partition: null, observedAt: now },
        { key: "user-1", topic: scratch.topic("nowhere"), subscription: "none", partition: null, observedAt: now },
        { key: "user-1", topic: null, subscription: null, partition: null, observedAt: now },
      ],
      { windowMs: WINDOW_MS, producerRouting: {} },
    );
    expect(owners.map((o) => (o.isComputed ? "computed" : o.reason))).toEqual(["no-owner-rule", "key-not-utf8", "no-resource", "no-resource"]);
  });
});
