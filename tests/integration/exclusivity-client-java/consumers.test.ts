import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { createExclusivityClient } from "@/lib/exclusivity-client";
import type { RouteServer } from "@/tests/bench/route-server";
import { createTestToken, openDb, rollupTotals } from "@/tests/integration/ingest/ingest-test-kit";
import { ackedValues, fnv1a, produceKeyed, startBaton, uniqueService, workerPool } from "@/tests/integration/exclusivity-client-java/java-kit";
import { ensureJavaClientBuilt } from "@/tests/support/java-exclusivity-worker";
import { createTestNamespace, getTestBroker, pollUntil } from "@/tests/support/pulsar";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";

// The Java interceptor on real Pulsar consumers (the official Java client against the test
// broker), counting in the machine's Redis and reporting to a real Baton ingest.

const db = openDb();
const redis = new Redis({ host: "127.0.0.1", port: 6379 });
const workers = workerPool();
let baton: RouteServer;
let token: string;
let namespace: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  await ensureJavaClientBuilt({ log: (line) => console.log(line) });
  token = await createTestToken(db, "java-client");
  baton = await startBaton();
  namespace = await createTestNamespace("java-client");
}, 600_000);

afterEach(() => workers.stopAll());

afterAll(async () => {
  await namespace.cleanup();
  await baton.close();
  await redis.quit();
  await db.$disconnect();
});

describe("BatonExclusivityInterceptor on a Failover subscription", () => {
  it("reports a violation naming both workers when a standby takes over from a stalled active consumer", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("failover");
    const common = {
      topic,
      subscription: "orders",
      type: "Failover",
      batonUrl: baton.url,
      token,
      keyPrefix,
      service,
      report: "VIOLATIONS_AND_COUNTS",
    } as const;
    // The active consumer stalls inside the listener on "hold-..." messages.
    const [stalled, standby] = await Promise.all([
      workers.start({ ...common, name: "jvm-stalled", priority: 1, holdPrefix: "hold" }),
      workers.launch({ ...common, name: "jvm-standby", priority: 0 }),
    ]);
    await produceKeyed(topic, 1, 1, "hold");
    await stalled.next("holding", (rest) => rest === "k-0 hold-0");
    // The entry reaches Redis from the interceptor's background queue, not on the consumer's thread.
    await pollUntil(
      () => redis.hlen(`${keyPrefix}${service}:k-0:inside`),
      (entries) => entries === 1,
      { description: "the stalled worker's entry in Redis" },
    );
    // A consumer of higher priority joins: the broker makes it active and redelivers the unacknowledged message to it.
    await standby.subscribe();
    await standby.next("acked", (rest) => rest === "k-0 hold-0");
    stalled.send("release");
    await stalled.next("acked", (rest) => rest === "k-0 hold-0");
    const [stalledStats, standbyStats] = await Promise.all([stalled.close(), standby.close()]);
    expect(stalledStats).toMatchObject({ entered: 1, violations: 0, notCounted: 0, countsSent: 1 });
    expect(standbyStats).toMatchObject({ entered: 1, violations: 1, notCounted: 0, eventsSent: 1, eventsDropped: 0 });

    const rows = await db.exclusivityEvent.findMany({
      where: { service },
      select: { key: true, counter: true, worker: true, topic: true, subscription: true, partition: true, othersInside: true, observedAt: true },
    });
    expect(rows).toHaveLength(1);
    const [violation] = rows;
    expect(violation).toMatchObject({ key: "k-0", counter: 1, worker: "jvm-standby", topic, subscription: "orders", partition: null });
    expect(violation!.othersInside).toEqual([{ worker: "jvm-stalled", enteredAt: expect.any(Number) }]);
    const [other] = violation!.othersInside as { enteredAt: number }[];
    expect(other!.enteredAt).toBeLessThanOrEqual(violation!.observedAt.getTime());
    // The stalled worker's clean entry arrived as a per-minute count, the violation as an event.
    expect(await rollupTotals(db, service)).toEqual({ events: 2, violations: 1 });
  });
});

describe("BatonExclusivityInterceptor on a Failover subscription whose active JVM is frozen", () => {
  it("reports a violation naming both workers when a standby takes over from a consumer stopped with SIGSTOP, which then wakes, finishes and leaves", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("failover-sigstop");
    const inside = `${keyPrefix}${service}:k-0:inside`;
    const common = { topic, subscription: "orders", type: "Failover", batonUrl: baton.url, token, keyPrefix, service } as const;
    const [frozen, standby] = await Promise.all([
      workers.start({ ...common, name: "jvm-frozen", priority: 1, holdPrefix: "hold" }),
      workers.launch({ ...common, name: "jvm-takeover", priority: 0 }),
    ]);
    await produceKeyed(topic, 1, 1, "hold");
    await frozen.next("holding", (rest) => rest === "k-0 hold-0");
    await pollUntil(
      () => redis.hlen(inside),
      (entries) => entries === 1,
      { description: "the active worker's entry in Redis" },
    );
    // The whole JVM stops mid-message (every thread: the consumer's, Pulsar's, the counter's), as
    // in a long GC pause; a consumer of higher priority joins and the broker hands it the
    // unacknowledged message without a word from the frozen one.
    frozen.signal("SIGSTOP");
    try {
      await standby.subscribe();
      await standby.next("acked", (rest) => rest === "k-0 hold-0");
      // The standby's entry has reached Redis (and its event Baton) while the frozen one is inside.
      standby.send("flush");
      expect((await standby.next("flushed")).rest).toBe("true");
    } finally {
      frozen.signal("SIGCONT");
    }
    frozen.send("release");
    await frozen.next("acked", (rest) => rest === "k-0 hold-0");
    const [frozenStats, standbyStats] = await Promise.all([frozen.close(), standby.close()]);
    expect(frozenStats).toMatchObject({ entered: 1, violations: 0, notCounted: 0, eventsSent: 1 });
    expect(standbyStats).toMatchObject({ entered: 1, violations: 1, notCounted: 0, eventsSent: 1 });

    const rows = await db.exclusivityEvent.findMany({
      where: { service },
      orderBy: { observedAt: "asc" },
      select: { key: true, counter: true, worker: true, othersInside: true },
    });
    expect(rows).toEqual([
      { key: "k-0", counter: 0, worker: "jvm-frozen", othersInside: null },
      { key: "k-0", counter: 1, worker: "jvm-takeover", othersInside: [{ worker: "jvm-frozen", enteredAt: expect.any(Number) }] },
    ]);
    // The woken worker's exit reached Redis: nobody is inside the key any more.
    expect(await redis.exists(inside)).toBe(0);
  });
});

describe("BatonExclusivityInterceptor with keySampleRate", () => {
  it("counts every message of the keys in the sample, picked by a stable hash of the key, and none of the others", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("sampled");
    const worker = await workers.start({
      topic,
      subscription: "orders",
      type: "Failover",
      name: "jvm-sampled",
      batonUrl: baton.url,
      token,
      keyPrefix,
      service,
      keySampleRate: 0.5,
    });
    const keys = Array.from({ length: 40 }, (_, i) => `k-${i}`);
    await produceKeyed(topic, 400, keys.length, "m");
    await pollUntil(
      async () => ackedValues(worker).length,
      (acked) => acked === 400,
      { maxAttempts: 600, description: "400 messages acknowledged" },
    );
    const stats = await worker.close();

    // The hash has no per-process seed: computed here, it picks the keys the JVM picked.
    const sampled = keys.filter((key) => fnv1a(key) < 0.5 * 2 ** 32).sort();
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(keys.length);
    expect(stats).toMatchObject({
      entered: sampled.length * 10,
      notSampled: (keys.length - sampled.length) * 10,
      notCounted: 0,
      violations: 0,
      eventsSent: sampled.length * 10,
    });
    const stored = await db.exclusivityEvent.groupBy({ by: ["key"], where: { service }, _count: { _all: true } });
    expect(stored.map((row) => row.key).sort()).toEqual(sampled);
    expect(stored.every((row) => row._count._all === 10)).toBe(true);
  });
});

describe("BatonExclusivityInterceptor on a Key_Shared subscription", () => {
  it("reports no violation when a consumer joins while quick processing goes on", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("key-shared");
    const common = {
      topic,
      subscription: "orders",
      type: "Key_Shared",
      batonUrl: baton.url,
      token,
      keyPrefix,
      service,
      receiverQueue: 50,
      processMs: 10,
    } as const;
    const [first, joiner] = await Promise.all([workers.start({ ...common, name: "jvm-ks-1" }), workers.launch({ ...common, name: "jvm-ks-2" })]);
    const total = 2_000;
    const producing = produceKeyed(topic, total, 40, "m");
    await pollUntil(
      async () => ackedValues(first).length,
      (acked) => acked >= 200,
      { maxAttempts: 600, description: "the first consumer acknowledging 200 messages" },
    );
    await joiner.subscribe();
    await producing;
    await pollUntil(
      async () => new Set([...ackedValues(first), ...ackedValues(joiner)]).size,
      (acked) => acked === total,
      { maxAttempts: 1_200, description: `${total} messages acknowledged` },
    );
    const [firstStats, joinerStats] = await Promise.all([first.close(), joiner.close()]);

    expect(ackedValues(joiner).length).toBeGreaterThan(0);
    expect(firstStats.violations + joinerStats.violations).toBe(0);
    expect(firstStats.notCounted + joinerStats.notCounted).toBe(0);
    const entered = firstStats.entered + joinerStats.entered;
    expect(entered).toBeGreaterThanOrEqual(total);
    expect(await db.exclusivityEvent.count({ where: { service } })).toBe(entered);
    expect(await db.exclusivityEvent.count({ where: { service, counter: { gt: 0 } } })).toBe(0);
  });
});

describe("BatonExclusivityInterceptor on a partitioned topic, acknowledging cumulatively", () => {
  it("names each event's partition and leaves every key once the cumulative acknowledgements cover it", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("partitioned");
    await createPartitionedTopic(getTestBroker().adminUrl, topic, 2);
    const worker = await workers.start({
      topic,
      subscription: "orders",
      type: "Failover",
      name: "jvm-cumulative",
      batonUrl: baton.url,
      token,
      keyPrefix,
      service,
      ackMode: "cumulative",
    });
    await produceKeyed(topic, 200, 20, "m");
    await pollUntil(
      async () => ackedValues(worker).length,
      (acked) => acked === 200,
      { maxAttempts: 600, description: "200 messages received" },
    );
    // Only acknowledgements leave keys: once they covered every message, no entry is left in Redis.
    await pollUntil(
      () => redis.keys(`${keyPrefix}${service}:*`),
      (keys) => keys.length === 0,
      {
        maxAttempts: 300,
        description: `every key left (worker: ${worker
          .lines()
          .slice(-3)
          .map((line) => line.kind)
          .join(",")})`,
      },
    );
    const stats = await worker.close();
    expect(stats).toMatchObject({ entered: 200, violations: 0, notCounted: 0, eventsSent: 200 });
    const partitions = await db.exclusivityEvent.groupBy({ by: ["topic", "partition"], where: { service }, _count: { _all: true } });
    expect(partitions.map((row) => [row.topic, row.partition]).sort()).toEqual([
      [topic, 0],
      [topic, 1],
    ]);
    expect(partitions.reduce((sum, row) => sum + row._count._all, 0)).toBe(200);
  }, 300_000);
});

describe("JVM and Node workers of one service", () => {
  it("count together: a Node worker entering a key a JVM consumer is inside is a violation naming it", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("mixed");
    const jvm = await workers.start({
      topic,
      subscription: "orders",
      type: "Shared",
      name: "jvm-pod",
      batonUrl: baton.url,
      token,
      keyPrefix,
      service,
      holdPrefix: "hold",
    });
    await produceKeyed(topic, 1, 1, "hold");
    await jvm.next("holding", (rest) => rest === "k-0 hold-0");
    const errors: Error[] = [];
    const node = createExclusivityClient({
      redis,
      keyPrefix,
      baton: { url: baton.url, token },
      service,
      worker: "node-pod",
      onError: (error) => errors.push(error),
    });
    // The JVM entry reaches Redis from the interceptor's background queue: poll until it is there.
    await pollUntil(
      () => redis.hlen(`${keyPrefix}${service}:k-0:inside`),
      (entries) => entries === 1,
      { description: "the JVM entry in Redis" },
    );
    const seen = await node.withExclusivity("k-0", (entry) => entry.counter, { subscription: "orders", topic });
    await node.close();
    jvm.send("release");
    await jvm.next("acked");
    await jvm.close();

    expect(errors).toEqual([]);
    expect(seen).toBe(1);
    const violation = await db.exclusivityEvent.findFirstOrThrow({ where: { service, worker: "node-pod" }, select: { counter: true, othersInside: true } });
    expect(violation.counter).toBe(1);
    expect(violation.othersInside).toEqual([{ worker: "jvm-pod", enteredAt: expect.any(Number) }]);
  });
});
