import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

import { createFleet, type Fleet } from "../fleet/fleet";
import { openConsumer, WebSocketUpgradeError } from "../../lib/pulsar/websocket";
import { requestAdmin, type AdminResponse } from "./admin-http";
import { createNamespace, createNonPartitionedTopic, createPartitionedTopic, createSubscription, createTenant, topicPath } from "./admin-setup";
import { MissingPrerequisiteError, PULSAR_VERSIONS, startBroker, type BrokerHandle, type PulsarVersion } from "./broker";

/**
 * `npm run fixtures:record`: starts a throwaway broker of every supported Pulsar version in turn,
 * plays the scripted leader scenario against it with real WebSocket consumers, and writes the
 * broker's real answers to tests/fixtures/pulsar/<version>/, one scenario per file. Re-running
 * replaces them. `npm run fixtures:record -- 3.0.7` records one version only.
 */

export const FIXTURES_DIR = path.resolve("tests", "fixtures", "pulsar");

const TENANT = "baton-fixtures";
const NAMESPACE = `${TENANT}/leaders`;
const topicName = (local: string) => `persistent://${NAMESPACE}/${local}`;
const ORDERS = topicName("orders");
const PAYMENTS = topicName("payments");
const AUDIT = topicName("audit");
const IDLE = topicName("idle");
const CLICKS = topicName("clicks");
const WORKERS = ["w1", "w2", "w3"];
// What Baton's poller sends with every stats call (PULSAR.md).
const STATS_QUERY = "subscriptionBacklogSize=false&getPreciseBacklog=false&getEarliestTimeInBacklog=false&excludePublishers=true";
const POLL_INTERVAL_MS = 100;
const MAX_POLLS = 100;

interface Fixture {
  pulsarVersion: PulsarVersion;
  scenario: string;
  description: string;
  request: { method: "GET"; path: string };
  status: number;
  headers: { "content-type": string | null };
  body: unknown;
  /** Facts of the scenario the body alone does not say (who was killed, ...). */
  context?: Record<string, unknown>;
}

// Only what the recorder itself must read from the stats to drive the scenario.
const SubscriptionSchema = z.object({
  activeConsumerName: z.string().optional(),
  msgBacklog: z.number(),
  consumers: z.array(
    z.object({
      consumerName: z.string().optional(),
      keyHashRangeArrays: z.array(z.unknown()).optional(),
      keyHashRanges: z.array(z.unknown()).optional(),
    }),
  ),
});
const TopicStatsSchema = z.object({ subscriptions: z.record(z.string(), SubscriptionSchema) });
const PartitionedStatsSchema = TopicStatsSchema.extend({ partitions: z.record(z.string(), TopicStatsSchema) });

class FixtureRecorder {
  readonly written: string[] = [];

  constructor(
    private readonly broker: BrokerHandle,
    private readonly dir: string,
  ) {}

  async get(path: string): Promise<AdminResponse> {
    return requestAdmin(this.broker.adminUrl, "GET", path);
  }

  async record(scenario: string, description: string, path: string, context?: Record<string, unknown>): Promise<AdminResponse> {
    const response = await this.get(path);
    this.write({ scenario, description, request: { method: "GET", path }, response, context });
    return response;
  }

  write(entry: { scenario: string; description: string; request: Fixture["request"]; response: AdminResponse; context?: Record<string, unknown> }): void {
    const isJson = entry.response.contentType?.includes("json") ?? false;
    const fixture: Fixture = {
      pulsarVersion: this.broker.version,
      scenario: entry.scenario,
      description: entry.description,
      request: entry.request,
      status: entry.response.status,
      headers: { "content-type": entry.response.contentType },
      body: isJson && entry.response.text ? JSON.parse(entry.response.text) : entry.response.text,
      ...(entry.context ? { context: entry.context } : {}),
    };
    const file = path.join(this.dir, `${entry.scenario}.json`);
    writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
    this.written.push(file);
  }
}

/** Reads until `isDone`, at most MAX_POLLS times; throws with `what` when it never holds. */
async function pollStats<T>(read: () => Promise<T>, isDone: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < MAX_POLLS; attempt++) {
    const value = await read();
    if (isDone(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  throw new Error(`waited in vain for ${what}`);
}

async function recordVersion(version: PulsarVersion): Promise<string[]> {
  const dir = path.join(FIXTURES_DIR, version);
  const broker = await startBroker({ version, log: (line) => console.error(line) });
  const fleet: Fleet = createFleet({ wsUrl: broker.wsUrl });
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const recorder = new FixtureRecorder(broker, dir);
    const admin = broker.adminUrl;
    const topicStats = async (topic: string) => TopicStatsSchema.parse(JSON.parse((await recorder.get(`${topicPath(topic)}/stats?${STATS_QUERY}`)).text));
    const partitionedStats = async (topic: string) =>
      PartitionedStatsSchema.parse(JSON.parse((await recorder.get(`${topicPath(topic)}/partitioned-stats?perPartition=true&${STATS_QUERY}`)).text));

    // --- Set-up: one tenant, one namespace, a topic per scenario.
    await createTenant(admin, TENANT);
    await createNamespace(admin, NAMESPACE);
    await createPartitionedTopic(admin, ORDERS, 4);
    await createNonPartitionedTopic(admin, PAYMENTS);
    await createNonPartitionedTopic(admin, IDLE);

    // --- Listings.
    await recorder.record("tenants", "GET /tenants after creating baton-fixtures", "/admin/v2/tenants");
    await recorder.record("namespaces", "namespaces of the baton-fixtures tenant", `/admin/v2/namespaces/${TENANT}`);

    // --- Failover, 4 partitions, consumers w1, w2, w3; some keyed traffic, all acked.
    await fleet.startGroup({ topic: ORDERS, subscription: "orders-workers", subscriptionType: "Failover", names: WORKERS });
    const ordersProducer = await fleet.openProducer({ topic: ORDERS, keys: ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"] });
    await ordersProducer.publish(16);
    const partitionKey = (index: number) => `${ORDERS}-partition-${index}`;
    // Steady state: every message delivered and acked (a new leader only gets messages after
    // activeConsumerFailoverDelayTimeMillis, 1 s).
    const before = await pollStats(
      () => partitionedStats(ORDERS),
      (stats) =>
        stats.subscriptions["orders-workers"]?.msgBacklog === 0 &&
        [0, 1, 2, 3].every((p) => {
          const subscription = stats.partitions[partitionKey(p)]?.subscriptions["orders-workers"];
          return subscription?.consumers.length === 3 && subscription.activeConsumerName !== undefined;
        }),
      "three consumers and a leader on every partition of orders, and no backlog",
    );
    const partitionedStatsPath = `${topicPath(ORDERS)}/partitioned-stats?perPartition=true&${STATS_QUERY}`;
    await recorder.record(
      "failover-partitioned-before",
      "Failover subscription orders-workers on 4 partitions, consumers w1, w2, w3 (partitioned-stats, perPartition)",
      partitionedStatsPath,
    );
    await recorder.record(
      "failover-partition-0",
      "the same, as /stats of one partition (orders-partition-0)",
      `${topicPath(`${ORDERS}-partition-0`)}/stats?${STATS_QUERY}`,
    );
    const killed = before.partitions[partitionKey(0)]!.subscriptions["orders-workers"]!.activeConsumerName!;
    await fleet.consumer(killed, "orders-workers").kill();
    const after = await pollStats(
      () => partitionedStats(ORDERS),
      (stats) =>
        [0, 1, 2, 3].every((p) => {
          const subscription = stats.partitions[partitionKey(p)]?.subscriptions["orders-workers"];
          return (
            subscription !== undefined && subscription.consumers.length === 2 && !subscription.consumers.some((consumer) => consumer.consumerName === killed)
          );
        }),
      `${killed} gone from every partition of orders`,
    );
    await recorder.record(
      "failover-partitioned-after",
      `the same after the socket of ${killed}, the active consumer of partition 0, dropped without a close frame`,
      partitionedStatsPath,
      {
        killedConsumer: killed,
        activeBefore: [0, 1, 2, 3].map((p) => before.partitions[partitionKey(p)]!.subscriptions["orders-workers"]!.activeConsumerName),
        activeAfter: [0, 1, 2, 3].map((p) => after.partitions[partitionKey(p)]!.subscriptions["orders-workers"]!.activeConsumerName),
      },
    );

    // --- Failover on a non-partitioned topic.
    await fleet.startGroup({ topic: PAYMENTS, subscription: "payments-workers", subscriptionType: "Failover", names: WORKERS });
    await pollStats(
      () => topicStats(PAYMENTS),
      (s) => s.subscriptions["payments-workers"]?.consumers.length === 3,
      "payments consumers",
    );
    await recorder.record(
      "failover-non-partitioned",
      "Failover subscription payments-workers on a non-partitioned topic, consumers w1, w2, w3",
      `${topicPath(PAYMENTS)}/stats?${STATS_QUERY}`,
    );

    // --- Exclusive, with 5 messages it never acks (a backlog), and a refused second consumer.
    await fleet.startConsumer({ name: "solo", topic: AUDIT, subscription: "audit-writer", subscriptionType: "Exclusive", ack: "none" });
    const auditProducer = await fleet.openProducer({ topic: AUDIT, keys: ["a"] });
    await auditProducer.publish(5);
    await pollStats(
      () => topicStats(AUDIT),
      (s) => s.subscriptions["audit-writer"]?.activeConsumerName === "solo",
      "audit holder",
    );
    await recorder.record(
      "exclusive",
      "Exclusive subscription audit-writer held by solo, 5 messages delivered and not acked",
      `${topicPath(AUDIT)}/stats?${STATS_QUERY}`,
    );
    const refused = await openConsumer({
      wsUrl: broker.wsUrl,
      topic: AUDIT,
      subscription: "audit-writer",
      subscriptionType: "Exclusive",
      consumerName: "standby",
    }).then(
      async (unexpected) => {
        await unexpected.close();
        throw new Error("a second Exclusive consumer was accepted");
      },
      (error: unknown) => error,
    );
    if (!(refused instanceof WebSocketUpgradeError)) throw refused;
    recorder.write({
      scenario: "ws-exclusive-second-consumer",
      description: "WebSocket upgrade of a second consumer (standby) on the Exclusive subscription: refused",
      request: { method: "GET", path: new URL(refused.url).pathname + new URL(refused.url).search },
      response: { status: refused.status, contentType: refused.contentType ?? null, text: refused.body },
      context: { detail: refused.detail },
    });

    // --- A durable subscription with no consumers, and 3 messages behind it.
    await createSubscription(admin, IDLE, "idle-sub");
    const idleProducer = await fleet.openProducer({ topic: IDLE, keys: ["i"] });
    await idleProducer.publish(3);
    await recorder.record(
      "no-consumers",
      "subscription idle-sub, created through the admin API, no consumers, 3 messages of backlog",
      `${topicPath(IDLE)}/stats?${STATS_QUERY}`,
    );

    // --- Key_Shared with k1, k2, k3.
    await fleet.startGroup({ topic: CLICKS, subscription: "clicks-readers", subscriptionType: "Key_Shared", names: ["k1", "k2", "k3"] });
    const clicksProducer = await fleet.openProducer({ topic: CLICKS, keys: ["u0", "u1", "u2", "u3", "u4", "u5"] });
    await clicksProducer.publish(12);
    await pollStats(
      () => topicStats(CLICKS),
      (s) => {
        const consumers = s.subscriptions["clicks-readers"]?.consumers ?? [];
        return (
          s.subscriptions["clicks-readers"]?.msgBacklog === 0 &&
          consumers.length === 3 &&
          consumers.every((c) => (c.keyHashRangeArrays ?? c.keyHashRanges ?? []).length > 0)
        );
      },
      "three Key_Shared consumers with hash ranges, and no backlog",
    );
    await recorder.record(
      "key-shared",
      "Key_Shared subscription clicks-readers, consumers k1, k2, k3 (AUTO_SPLIT, as every WebSocket consumer)",
      `${topicPath(CLICKS)}/stats?${STATS_QUERY}`,
    );

    // --- Topic listings and metadata, now that every topic exists.
    await recorder.record("topics-persistent", "GET /persistent/{tenant}/{namespace}: partitions are listed one by one", `/admin/v2/persistent/${NAMESPACE}`);
    await recorder.record(
      "topics-partitioned",
      "GET /persistent/{tenant}/{namespace}/partitioned: base names only",
      `/admin/v2/persistent/${NAMESPACE}/partitioned`,
    );
    await recorder.record("topics-namespace", "GET /namespaces/{tenant}/{namespace}/topics", `/admin/v2/namespaces/${NAMESPACE}/topics`);
    await recorder.record("partitioned-metadata", "partition count of the partitioned topic orders", `${topicPath(ORDERS)}/partitions`);
    await recorder.record("partitioned-metadata-non-partitioned", "partition count of the non-partitioned topic payments", `${topicPath(PAYMENTS)}/partitions`);

    // --- Errors.
    await recorder.record("error-404-topic", "/stats of a topic that does not exist", `${topicPath(topicName("missing"))}/stats?${STATS_QUERY}`);
    await recorder.record(
      "error-404-partitioned-topic",
      "partitioned-stats of a topic that does not exist",
      `${topicPath(topicName("missing"))}/partitioned-stats?perPartition=true&${STATS_QUERY}`,
    );
    await recorder.record(
      "partitioned-stats-of-non-partitioned",
      "partitioned-stats of the non-partitioned topic payments",
      `${topicPath(PAYMENTS)}/partitioned-stats?perPartition=true&${STATS_QUERY}`,
    );
    await recorder.record(
      "error-412-partition-name",
      "partitioned-stats given a -partition- name",
      `${topicPath(`${ORDERS}-partition-0`)}/partitioned-stats?perPartition=true&${STATS_QUERY}`,
    );
    return recorder.written;
  } finally {
    await fleet.shutdown("kill").catch((error: unknown) => console.error("closing the fleet:", error));
    await broker.stop();
  }
}

async function recordAllFixtures(): Promise<void> {
  const requested = process.argv.slice(2);
  const versions = (requested.length > 0 ? requested : Object.keys(PULSAR_VERSIONS)) as PulsarVersion[];
  for (const version of versions) {
    if (!Object.hasOwn(PULSAR_VERSIONS, version)) throw new Error(`unknown Pulsar version ${version}`);
    console.error(`Recording fixtures from Pulsar ${version}...`);
    const written = await recordVersion(version);
    console.log(`Pulsar ${version}: wrote ${written.length} fixtures to ${path.relative(process.cwd(), path.join(FIXTURES_DIR, version))}`);
  }
}

recordAllFixtures().catch((error: unknown) => {
  console.error(error instanceof MissingPrerequisiteError ? error.message : error);
  process.exit(1);
});
