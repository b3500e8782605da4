import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/metrics/route";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { getPartitionedStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { startRouteServer, type RouteServer } from "@/tests/bench/route-server";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { startPrometheus, type TestPrometheus } from "@/tests/support/prometheus-server";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// A real Prometheus scrapes Baton's /metrics (served over HTTP by the route handler) while the
// poller watches a Failover subscription on the real broker; killing the active consumer must
// make a PromQL query through Prometheus's HTTP API name the broker's new holder.

const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
const clusterName = `metrics-${randomUUID().slice(0, 8)}`;
const SUBSCRIPTION = "orders-workers";

let db: Db;
let fleet: Fleet;
let cleanupNamespace: () => Promise<void>;
let topic: string;
let server: RouteServer;
let prometheus: TestPrometheus;
let poller: RunningPoller;

async function brokerHolder(partition: number): Promise<string | null> {
  const stats = await getPartitionedStats({ adminUrl: broker.adminUrl, requestTimeoutMs: 5000 }, parseTopicName(topic)!.topic);
  const entry = Object.entries(stats.partitions).find(([name]) => parseTopicName(name)!.partition === partition);
  return entry?.[1].subscriptions[SUBSCRIPTION]?.activeConsumerName ?? null;
}

beforeAll(async () => {
  const scratch = await createTestNamespace("metrics");
  cleanupNamespace = scratch.cleanup;
  topic = scratch.topic("orders");
  process.env.DATABASE_URL = databaseUrl;
  process.env.BATON_CLUSTERS = JSON.stringify([
    {
      name: clusterName,
      adminUrl: broker.adminUrl,
      scope: { namespaces: [scratch.namespace] },
      pollIntervalMs: 500,
      discoveryIntervalMs: 1000,
      requestTimeoutMs: 2000,
    },
  ]);
  db = createTestDb(databaseUrl);
  await createPartitionedTopic(broker.adminUrl, topic, 2);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["w1", "w2", "w3"], topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" });
  const cluster = getConfig().clusters[0]!;
  const clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "metrics-poller" });
  server = await startRouteServer({ "GET /metrics": GET });
  prometheus = await startPrometheus({ target: new URL(server.url).host });
});

afterAll(async () => {
  await prometheus?.dispose();
  await server?.close();
  await poller?.stop();
  await fleet?.shutdown("kill");
  await cleanupNamespace?.();
  await db?.$disconnect();
});

describe("Prometheus scraping Baton's /metrics", () => {
  it("names the new holder of a partition after a failover, through PromQL", async () => {
    const resource = await waitFor(
      () =>
        db.heldResource.findFirst({
          where: { cluster: { name: clusterName }, subscription: SUBSCRIPTION, partition: 0, holder: { not: null } },
          select: { resourceKey: true, holder: true },
        }),
      (row) => row !== null,
      "the poller to store partition 0's holder",
    );
    const promql = `baton_resource_holder_info{cluster="${clusterName}",resource="${resource!.resourceKey}"}`;
    const holderOf = async () => (await prometheus.query(promql)).map((sample) => sample.metric.holder);
    const first = await brokerHolder(0);
    expect(first).not.toBeNull();
    await waitFor(holderOf, (holders) => holders.length === 1 && holders[0] === first, "Prometheus to name the first holder", 150, 200);

    await fleet.consumer(first!).kill();
    const next = await waitFor(
      () => brokerHolder(0),
      (holder) => holder !== null && holder !== first,
      "the broker to elect a new holder",
    );
    const holders = await waitFor(holderOf, (values) => values.length === 1 && values[0] !== first, "Prometheus to name a new holder", 150, 200);
    expect(holders).toEqual([next]);

    const changes = await prometheus.query(`sum(baton_holder_changes_total{cluster="${clusterName}",kind="HOLDER_CHANGED"})`);
    expect(Number(changes[0]?.value[1])).toBeGreaterThanOrEqual(1);
    const up = await prometheus.query(`baton_source_up{cluster="${clusterName}"}`);
    expect(up.map((sample) => [sample.metric.kind, sample.value[1]])).toEqual([["pulsar", "1"]]);
    const scrape = await prometheus.query(`up{job="baton"}`);
    expect(scrape.map((sample) => sample.value[1])).toEqual(["1"]);
  });
});
