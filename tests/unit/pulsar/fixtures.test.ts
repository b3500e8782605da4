import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";

import { partitionedTopicStatsSchema, type SubscriptionStats, subscriptionStatsSchema, topicStatsSchema } from "@/lib/pulsar/schemas";

// The recorded broker answers (npm run fixtures:record) parse, and say what the scenario claims:
// unit tests elsewhere rely on these facts without a broker.
const FIXTURES_DIR = path.resolve("tests", "fixtures", "pulsar");
const VERSIONS = ["4.2.4", "3.0.7"] as const;
const WORKERS = ["w1", "w2", "w3"];

const FixtureSchema = z.object({
  pulsarVersion: z.string(),
  scenario: z.string(),
  description: z.string(),
  request: z.object({ method: z.literal("GET"), path: z.string().startsWith("/") }),
  status: z.number().int(),
  headers: z.object({ "content-type": z.string().nullable() }),
  body: z.unknown(),
  context: z.record(z.string(), z.unknown()).optional(),
});
type Fixture = z.infer<typeof FixtureSchema>;

const ReasonSchema = z.object({ reason: z.string() });
const FailoverContextSchema = z.object({
  killedConsumer: z.string(),
  activeBefore: z.array(z.string()),
  activeAfter: z.array(z.string()),
});

function readFixture(version: string, scenario: string): Fixture {
  return FixtureSchema.parse(JSON.parse(readFileSync(path.join(FIXTURES_DIR, version, `${scenario}.json`), "utf8")));
}

function body<T>(fixture: Fixture, schema: z.ZodType<T>): T {
  return schema.parse(fixture.body);
}

const ORDERS = "persistent://baton-fixtures/leaders/orders";
const partitionSubscription = (fixture: Fixture, index: number): SubscriptionStats => {
  const stats = body(fixture, partitionedTopicStatsSchema);
  const subscription = stats.partitions[`${ORDERS}-partition-${index}`]?.subscriptions["orders-workers"];
  if (!subscription) throw new Error(`no orders-workers on partition ${index}`);
  return subscription;
};
const names = (subscription: SubscriptionStats) => subscription.consumers.map((consumer) => consumer.consumerName).sort();

describe.each(VERSIONS)("Pulsar %s fixtures", (version) => {
  it("every file parses, names its version and scenario, and records a status and content type", () => {
    const files = readdirSync(path.join(FIXTURES_DIR, version)).filter((file) => file.endsWith(".json"));
    expect(files.length).toBeGreaterThanOrEqual(19);
    for (const file of files) {
      const fixture = readFixture(version, file.replace(/\.json$/, ""));
      expect(fixture.pulsarVersion).toBe(version);
      expect(`${fixture.scenario}.json`).toBe(file);
      expect(fixture.headers["content-type"]).toBeTruthy();
    }
  });

  it("lists tenants, namespaces and topics; partitions appear one by one, partitioned topics by base name", () => {
    expect(body(readFixture(version, "tenants"), z.array(z.string()))).toEqual(expect.arrayContaining(["baton-fixtures", "public", "pulsar"]));
    expect(body(readFixture(version, "namespaces"), z.array(z.string()))).toEqual(["baton-fixtures/leaders"]);
    const persistent = body(readFixture(version, "topics-persistent"), z.array(z.string()));
    expect(persistent).toEqual(expect.arrayContaining([0, 1, 2, 3].map((p) => `${ORDERS}-partition-${p}`)));
    expect(persistent).not.toContain(ORDERS);
    expect(body(readFixture(version, "topics-partitioned"), z.array(z.string()))).toEqual([ORDERS]);
    expect(body(readFixture(version, "topics-namespace"), z.array(z.string()))).toEqual(expect.arrayContaining([`${ORDERS}-partition-0`]));
    expect(body(readFixture(version, "partitioned-metadata"), z.object({ partitions: z.number() })).partitions).toBe(4);
    expect(body(readFixture(version, "partitioned-metadata-non-partitioned"), z.object({ partitions: z.number() })).partitions).toBe(0);
  });

  it("Failover on 4 partitions: w1..w3 everywhere, leaders by sorted name mod 3, none in the aggregate", () => {
    const before = readFixture(version, "failover-partitioned-before");
    expect(before.status).toBe(200);
    for (const index of [0, 1, 2, 3]) expect(names(partitionSubscription(before, index))).toEqual(WORKERS);
    expect([0, 1, 2, 3].map((index) => partitionSubscription(before, index).activeConsumerName)).toEqual(["w1", "w2", "w3", "w1"]);
    const aggregate = body(before, z.object({ subscriptions: z.record(z.string(), subscriptionStatsSchema) })).subscriptions["orders-workers"];
    expect(aggregate).toBeDefined();
    expect(aggregate!.activeConsumerName).toBeUndefined();
    // So Baton's schema leaves the aggregate out: neither read nor validated.
    expect(body(before, partitionedTopicStatsSchema)).not.toHaveProperty("subscriptions");
    expect(pickSinglePartition(version).activeConsumerName).toBe(partitionSubscription(before, 0).activeConsumerName);
  });

  it("after the leader of partition 0 is killed, partition 0 names a different leader and the killed one is gone", () => {
    const before = readFixture(version, "failover-partitioned-before");
    const after = readFixture(version, "failover-partitioned-after");
    const context = FailoverContextSchema.parse(after.context);
    expect(context.killedConsumer).toBe(partitionSubscription(before, 0).activeConsumerName);
    expect(partitionSubscription(after, 0).activeConsumerName).not.toBe(partitionSubscription(before, 0).activeConsumerName);
    for (const index of [0, 1, 2, 3]) {
      expect(names(partitionSubscription(after, index))).not.toContain(context.killedConsumer);
      expect(partitionSubscription(after, index).activeConsumerName).toBe(context.activeAfter[index]);
    }
    // Two consumers left: sorted name mod 2 reshuffles partitions the killed one never led.
    expect(context.activeAfter).toEqual(["w2", "w3", "w2", "w3"]);
  });

  it("Failover on a non-partitioned topic names one of w1..w3", () => {
    const subscription = body(readFixture(version, "failover-non-partitioned"), topicStatsSchema).subscriptions["payments-workers"];
    expect(names(subscription!)).toEqual(WORKERS);
    expect(WORKERS).toContain(subscription!.activeConsumerName);
  });

  it("Exclusive: solo holds it with a backlog of 5, and a second consumer's upgrade got 409", () => {
    const subscription = body(readFixture(version, "exclusive"), topicStatsSchema).subscriptions["audit-writer"]!;
    expect(subscription.activeConsumerName).toBe("solo");
    expect(names(subscription)).toEqual(["solo"]);
    expect(subscription.msgBacklog).toBe(5);
    const refused = readFixture(version, "ws-exclusive-second-consumer");
    expect(refused.status).toBe(409);
    expect(z.object({ detail: z.string() }).parse(refused.context).detail).toContain("Exclusive consumer is already connected");
  });

  it("a subscription without consumers: no leader, an empty consumer list, type None, backlog 3", () => {
    const subscription = body(readFixture(version, "no-consumers"), topicStatsSchema).subscriptions["idle-sub"]!;
    expect(subscription.consumers).toEqual([]);
    expect(subscription.activeConsumerName).toBeUndefined();
    expect(subscription.type).toBe("None");
    expect(subscription.msgBacklog).toBe(3);
  });

  it("Key_Shared: k1..k3 with hash ranges in this version's format, and no leader", () => {
    const subscription = body(readFixture(version, "key-shared"), topicStatsSchema).subscriptions["clicks-readers"]!;
    expect(names(subscription)).toEqual(["k1", "k2", "k3"]);
    expect(subscription.activeConsumerName).toBeUndefined();
    for (const consumer of subscription.consumers) {
      if (version.startsWith("4.")) {
        expect(consumer.keyHashRanges).toBeUndefined();
        expect(consumer.keyHashRangeArrays?.length).toBeGreaterThan(0);
        for (const [start, end] of consumer.keyHashRangeArrays!) {
          expect(start).toBeLessThanOrEqual(end);
          expect(end).toBeLessThanOrEqual(65_535);
        }
      } else {
        expect(consumer.keyHashRangeArrays).toBeUndefined();
        expect(consumer.keyHashRanges?.length).toBeGreaterThan(0);
        for (const range of consumer.keyHashRanges!) {
          const match = /^\[(\d+), (\d+)\]$/.exec(range);
          expect(match, range).not.toBeNull();
          expect(Number(match![1])).toBeLessThanOrEqual(Number(match![2]));
          expect(Number(match![2])).toBeLessThan(2 ** 31);
        }
      }
    }
  });

  it.each([
    ["error-404-topic", 404, "Topic persistent://baton-fixtures/leaders/missing not found"],
    ["error-404-partitioned-topic", 404, "Partitioned Topic persistent://baton-fixtures/leaders/missing not found"],
    ["partitioned-stats-of-non-partitioned", 404, "Partitioned Topic persistent://baton-fixtures/leaders/payments not found"],
    ["error-412-partition-name", 412, "Partitioned Topic Name should not contain '-partition-'"],
  ])("%s: HTTP %i with a JSON reason", (scenario, status, reason) => {
    const fixture = readFixture(version, scenario);
    expect(fixture.status).toBe(status);
    expect(fixture.headers["content-type"]).toContain("application/json");
    expect(body(fixture, ReasonSchema).reason).toBe(reason);
  });
});

function pickSinglePartition(version: string): SubscriptionStats {
  const subscription = body(readFixture(version, "failover-partition-0"), topicStatsSchema).subscriptions["orders-workers"];
  if (!subscription) throw new Error("no orders-workers in the single-partition stats");
  return subscription;
}
