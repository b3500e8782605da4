import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import type { ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";
import { scrapeConsumerMetrics } from "@/lib/sources/pulsar/consumer-signal/scrape-consumer-metrics";
import { createPartitionedTopic, createScratchNamespace, type ScratchNamespace } from "@/tools/pulsar/admin-setup";
import { type BrokerHandle, startBroker } from "@/tools/pulsar/broker";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The consumer change signal against real brokers of its own: one with
// exposeConsumerLevelMetricsInPrometheus=true (as the shared test broker has it), one without.
// Counts, not timings, tell what read a change: with a poll interval of an hour, only the signal's
// re-poll can have stored a change after the first sweep.

const databaseUrl = getTestDatabaseUrl();
const HOUR_MS = 3_600_000;
let db: Db;
let signalBroker: BrokerHandle;
let plainBroker: BrokerHandle;
const fleets: Fleet[] = [];
const namespaces: ScratchNamespace[] = [];
const pollers: RunningPoller[] = [];
const servers: TestServer[] = [];

function clusterConfig(name: string, adminUrl: string, namespace: string, extra: Record<string, unknown>) {
  return loadConfig({
    BATON_CLUSTERS: JSON.stringify([{ name, adminUrl, scope: { namespaces: [namespace] }, discoveryIntervalMs: HOUR_MS, requestTimeoutMs: 5_000, ...extra }]),
  }).clusters[0]!;
}

async function start(name: string, adminUrl: string, namespace: string, extra: Record<string, unknown>): Promise<number> {
  const cluster = clusterConfig(`${name}-${Date.now().toString(36)}`, adminUrl, namespace, extra);
  const clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: `signal-${name}` }));
  return clusterId;
}

async function storedHolders(clusterId: number, subscription: string): Promise<string> {
  const rows = await db.heldResource.findMany({
    where: { clusterId, subscription, goneAt: null },
    orderBy: { partition: "asc" },
    select: { partition: true, holder: true },
  });
  return JSON.stringify(rows.map((r) => [r.partition, r.holder]));
}

async function brokerHolders(adminUrl: string, topic: string, subscription: string): Promise<string> {
  const stats = await getPartitionedStats({ adminUrl, requestTimeoutMs: 5_000 }, parseTopicName(topic)!.topic);
  const rows = Object.entries(stats.partitions).map(
    ([name, s]) => [parseTopicName(name)!.partition, s.subscriptions[subscription]?.activeConsumerName ?? null] as const,
  );
  return JSON.stringify(rows.sort((a, b) => a[0] - b[0]));
}

async function signalStatus(clusterId: number): Promise<ConsumerSignalStatus | null> {
  return (await db.cluster.findUniqueOrThrow({ where: { id: clusterId }, select: { changeSignal: true } })).changeSignal as ConsumerSignalStatus | null;
}

const pollRunCount = (clusterId: number) => db.pollRun.count({ where: { clusterId } });

/** Waits until Baton stores the broker's leaders of `topic`. */
/** The broker may still name a killed consumer (or not yet a new one) for a moment: wait for its answer to settle first. */
function waitForBroker(adminUrl: string, topic: string, subscription: string, isSettled: (holders: string) => boolean, what: string): Promise<string> {
  return waitFor(() => brokerHolders(adminUrl, topic, subscription), isSettled, what);
}

async function waitForLeaders(clusterId: number, adminUrl: string, topic: string, subscription: string, what: string): Promise<void> {
  // Consumers that just subscribed may not all be placed yet: a partition can have no active
  // consumer for a moment. What Baton must store is the broker's settled answer.
  const expected = await waitForBroker(
    adminUrl,
    topic,
    subscription,
    (h) => !h.includes("null"),
    `${what}: the broker to name an active consumer on every partition`,
  );
  await waitFor(
    () => storedHolders(clusterId, subscription),
    (h) => h === expected,
    what,
  );
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  [signalBroker, plainBroker] = await Promise.all([
    startBroker({ keepData: false, brokerConfig: { exposeConsumerLevelMetricsInPrometheus: true } }),
    startBroker({ keepData: false, brokerConfig: { exposeConsumerLevelMetricsInPrometheus: false } }),
  ]);
});

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const fleet of fleets) await fleet.shutdown("kill");
  for (const namespace of namespaces) await namespace.cleanup().catch(() => {});
  for (const server of servers) await server.close();
  await signalBroker?.stop();
  await plainBroker?.stop();
  await db?.$disconnect();
});

describe("the consumer change signal", () => {
  it("re-polls a topic whose consumers joined or left before the next full cycle would read it", async () => {
    const scratch = await createScratchNamespace(signalBroker.adminUrl, "signal-on");
    namespaces.push(scratch);
    const orders = scratch.topic("orders");
    const single = scratch.topic("single");
    await createPartitionedTopic(signalBroker.adminUrl, orders, 4);
    await createPartitionedTopic(signalBroker.adminUrl, single, 1);
    const fleet = createFleet({ wsUrl: signalBroker.wsUrl });
    fleets.push(fleet);
    await fleet.startGroup({ names: ["w1", "w2"], topic: orders, subscription: "workers", subscriptionType: "Failover" });
    await fleet.startConsumer({ name: "s1", topic: single, subscription: "singles", subscriptionType: "Failover" });

    const clusterId = await start("on", signalBroker.adminUrl, scratch.namespace, {
      pollIntervalMs: HOUR_MS,
      consumerSignal: "auto",
      consumerSignalIntervalMs: 250,
    });
    await waitForLeaders(clusterId, signalBroker.adminUrl, orders, "workers", "the first sweep");
    // The baseline scrape came before the first sweep, whose save stored the signal's status.
    await waitFor(
      () => signalStatus(clusterId),
      (s) => s?.mode === "on",
      "the signal's first status",
    );
    expect(await pollRunCount(clusterId)).toBe(1);

    // A consumer joins: w3 takes partition 2 (sorted names, partition mod 3).
    await fleet.startConsumer({ name: "w3", topic: orders, subscription: "workers", subscriptionType: "Failover" });
    await waitForBroker(signalBroker.adminUrl, orders, "workers", (h) => h.includes(`"w3"`), "the broker to give w3 a partition");
    await waitForLeaders(clusterId, signalBroker.adminUrl, orders, "workers", "the re-poll after w3 joined");
    // The active consumer is killed: its partitions move to w2 and w3.
    await fleet.consumer("w1").kill();
    await waitForBroker(signalBroker.adminUrl, orders, "workers", (h) => !h.includes(`"w1"`), "the broker to move w1's partitions");
    await waitForLeaders(clusterId, signalBroker.adminUrl, orders, "workers", "the re-poll after w1 was killed");
    const changes = await db.holderChange.count({ where: { clusterId, kind: "HOLDER_CHANGED" } });
    expect(changes).toBeGreaterThanOrEqual(2);

    // One partition changed: its own stats are read, and the new standby is stored.
    await fleet.startConsumer({ name: "s2", topic: single, subscription: "singles", subscriptionType: "Failover" });
    await waitFor(
      async () =>
        (await db.heldResource.findFirst({ where: { clusterId, subscription: "singles", partition: 0 }, select: { consumers: true } }))?.consumers as
          | { name: string }[]
          | undefined,
      (consumers) => consumers?.some((c) => c.name === "s2") === true,
      "the re-poll of the single partition",
    );

    // Still the one sweep: only re-polls can have stored all of this.
    expect(await pollRunCount(clusterId)).toBe(1);
    const status = await waitFor(
      () => signalStatus(clusterId),
      (s) => (s?.repollCount ?? 0) >= 3,
      "the signal's status",
    );
    expect(status).toMatchObject({ mode: "on", brokerListError: null });
    // The period it keeps: the configured 250 ms, or twice the mean of the latest rounds when longer.
    expect(status!.periodMs).toBeGreaterThanOrEqual(250);
    expect(status!.brokers).toHaveLength(1);
    expect(status!.brokers[0]).toMatchObject({ url: signalBroker.adminUrl, error: null });
    expect(status!.brokers[0]!.bytes).toBeGreaterThan(0);
  });

  it("re-polls nothing when the broker does not expose consumer-level series, and the cycle finds the change", async () => {
    const broker = plainBroker;
    const scratch = await createScratchNamespace(broker.adminUrl, "signal-off");
    namespaces.push(scratch);
    const orders = scratch.topic("orders");
    await createPartitionedTopic(broker.adminUrl, orders, 2);
    const fleet = createFleet({ wsUrl: broker.wsUrl });
    fleets.push(fleet);
    await fleet.startGroup({ names: ["w1", "w2"], topic: orders, subscription: "workers", subscriptionType: "Failover" });

    const autoId = await start("not-exposed", broker.adminUrl, scratch.namespace, {
      pollIntervalMs: 1_000,
      consumerSignal: "auto",
      consumerSignalIntervalMs: 250,
    });
    const offId = await start("off", broker.adminUrl, scratch.namespace, { pollIntervalMs: 1_000, consumerSignal: "off" });
    await waitForLeaders(autoId, broker.adminUrl, orders, "workers", "the first sweep");
    await waitFor(
      () => signalStatus(autoId),
      (s) => s?.mode === "not-exposed",
      "the signal to find no consumer-level series",
    );
    await fleet.consumer("w1").kill();
    await waitForBroker(broker.adminUrl, orders, "workers", (h) => !h.includes(`"w1"`), "the broker to move w1's partition");
    await waitForLeaders(autoId, broker.adminUrl, orders, "workers", "a sweep after w1 was killed");
    await waitForLeaders(offId, broker.adminUrl, orders, "workers", "a sweep of the cluster with the signal off");
    expect(await signalStatus(autoId)).toMatchObject({ mode: "not-exposed", repollCount: 0 });
    expect(await signalStatus(offId)).toMatchObject({ mode: "disabled", repollCount: 0, brokers: [] });
    expect(await db.holderChange.count({ where: { clusterId: autoId, kind: "HOLDER_CHANGED" } })).toBeGreaterThanOrEqual(1);
  });

  it("leaves the signal stale and the cycle unchanged when /metrics/ is cut mid-body or unreachable", async () => {
    const scratch = await createScratchNamespace(signalBroker.adminUrl, "signal-cut");
    namespaces.push(scratch);
    const orders = scratch.topic("orders");
    await createPartitionedTopic(signalBroker.adminUrl, orders, 2);
    const fleet = createFleet({ wsUrl: signalBroker.wsUrl });
    fleets.push(fleet);
    await fleet.startGroup({ names: ["w1", "w2"], topic: orders, subscription: "workers", subscriptionType: "Failover" });

    // In front of the real broker: the admin API passes through, the broker list names this
    // server (or a closed port), and /metrics/ sends the real body up to the middle of the first
    // consumer-level series (the parser needs that family whole), then drops the socket.
    let brokerEntry = "";
    const front = await startHttpServer(async (req, res) => {
      if (req.url?.startsWith("/admin/v2/brokers/")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify([brokerEntry]));
        return;
      }
      const upstream = await fetch(`${signalBroker.adminUrl}${req.url}`, { method: req.method });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.url?.startsWith("/metrics")) {
        res.writeHead(200, { "content-type": "text/plain", "content-length": String(body.length) });
        const firstConsumerLine = body.indexOf("\npulsar_consumer_");
        expect(firstConsumerLine).toBeGreaterThan(0);
        res.write(body.subarray(0, firstConsumerLine + 40), () => res.destroy());
        return;
      }
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" }).end(body);
    });
    servers.push(front);
    brokerEntry = new URL(front.url).host;

    await expect(scrapeConsumerMetrics({ adminUrl: front.url, requestTimeoutMs: 5_000 }, front.url, 5_000)).rejects.toThrow(/was cut after \d+ bytes/);
    await expect(scrapeConsumerMetrics({ adminUrl: front.url, requestTimeoutMs: 5_000 }, "http://127.0.0.1:9", 5_000)).rejects.toThrow(
      /cannot reach 127\.0\.0\.1:9/,
    );

    const cutId = await start("cut", front.url, scratch.namespace, { pollIntervalMs: 1_000, consumerSignal: "auto", consumerSignalIntervalMs: 250 });
    await waitForLeaders(cutId, signalBroker.adminUrl, orders, "workers", "the first sweep");
    await waitFor(
      () => signalStatus(cutId),
      (s) => /was cut after/.test(s?.brokers[0]?.error ?? ""),
      "the cut scrape in the signal's status",
    );
    await fleet.consumer("w1").kill();
    await waitForBroker(signalBroker.adminUrl, orders, "workers", (h) => !h.includes(`"w1"`), "the broker to move w1's partitions");
    await waitForLeaders(cutId, signalBroker.adminUrl, orders, "workers", "a sweep after w1 was killed");
    expect(await signalStatus(cutId)).toMatchObject({ mode: "starting", repollCount: 0, brokers: [{ lastScrapeAt: null }] });
  });
});
