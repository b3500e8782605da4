import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { summarizeKindDetails } from "@/components/locks/kinds/kind-facts";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import { type BrokerHandle, startBroker } from "@/tools/pulsar/broker";
import { signalProcessGroup } from "@/tools/pulsar/process-guard";
import { readLogTail } from "@/tools/pulsar/read-log-tail";
import { createTestDb, registerCluster, type RunningPoller, startPoller, testClusterConfig, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// Pulsar's own leader broker (the load manager's leader, LeaderElectionService), from a real
// Pulsar 4.2.4 standalone whose metadata store is the test's ZooKeeper 3.9.3 (`--metadata-url
// zk:...`): the broker writes its ephemeral /loadbalance/leader itself. Baton's ZooKeeper kind
// (`"systems": [{"system": "pulsar"}]`) names the leader as Pulsar's admin API does, beside the
// subscription leader Baton's Pulsar kind reads from the same broker; the broker is SIGKILLed, its
// ZooKeeper session expires, and the change row says EXPIRED.

/** The broker's ZooKeeper session: short, so that its expiry comes within the test. */
const BROKER_SESSION_TIMEOUT_MS = 4_000;
const LEADER_PATH = "/loadbalance/leader";
const SUBSCRIPTION = "lm-workers";
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let admin: TestSession;
let broker: BrokerHandle;
let fleet: Fleet;
let cleanupNamespace: (() => Promise<void>) | undefined;
const pollers: RunningPoller[] = [];
const run = randomUUID().slice(0, 8);
const zookeeperClusterName = `pulsar-zookeeper-${run}`;
const pulsarClusterName = `pulsar-broker-${run}`;
let zookeeperClusterId: number;
let pulsarClusterId: number;

/** What Pulsar's admin API names as the leader broker (GET /admin/v2/brokers/leaderBroker). */
async function readAdminLeader(): Promise<{ brokerId: string; serviceUrl: string }> {
  const response = await fetch(`${broker.adminUrl}/admin/v2/brokers/leaderBroker`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`GET /admin/v2/brokers/leaderBroker answered ${response.status}`);
  return (await response.json()) as { brokerId: string; serviceUrl: string };
}

/** The leader node as the broker wrote it: its JSON and its owning session. */
function readLeaderNode(): Promise<{ json: unknown; session: string }> {
  return new Promise((resolve, reject) =>
    admin.client.getData(LEADER_PATH, (error, data, stat) =>
      error ? reject(error) : resolve({ json: JSON.parse(data.toString("utf8")), session: `0x${stat.ephemeralOwner.readBigUInt64BE(0).toString(16)}` }),
    ),
  );
}

async function leaderRow() {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId: zookeeperClusterId, resourceKey: LEADER_PATH } },
    select: { holder: true, consumers: true, details: true, lastObservedAt: true },
  });
  if (row === null) return null;
  const source = (row.details as { source: Record<string, unknown> }).source;
  return { holder: row.holder, waiters: (row.consumers as { name: string }[]).map((w) => w.name), source, lastObservedAt: row.lastObservedAt };
}

/** Waits for the ZooKeeper kind's row, with the broker's log in the error. */
async function waitForLeaderRow(isDone: (row: NonNullable<Awaited<ReturnType<typeof leaderRow>>>) => boolean, what: string) {
  try {
    return (await waitFor(leaderRow, (row) => row !== null && isDone(row), what))!;
  } catch (error) {
    throw new Error(`${(error as Error).message}\nlast row: ${JSON.stringify(await leaderRow())}\n${readLogTail(broker.logFile, 30)}`);
  }
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  admin = await openTestSession(server.connectString);
  broker = await startBroker({
    metadataStoreUrl: `zk:${server.connectString}`,
    maxHeapMb: 384,
    brokerConfig: { metadataStoreSessionTimeoutMillis: BROKER_SESSION_TIMEOUT_MS },
  });
  // One Failover subscription with one consumer: the leader Baton's Pulsar kind reads.
  const scratch = await createScratchNamespace(broker.adminUrl, "load-manager");
  cleanupNamespace = scratch.cleanup;
  const topic = scratch.topic("orders");
  await createPartitionedTopic(broker.adminUrl, topic, 1);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["w1"], topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" });

  const zookeeperCluster: ClusterConfig = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: zookeeperClusterName,
        connectString: server.connectString,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 1_000,
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 1_000,
        systems: [{ system: "pulsar" }],
      },
    ]),
  }).clusters[0]!;
  const pulsarCluster = testClusterConfig(pulsarClusterName, broker.adminUrl, scratch.namespace);
  zookeeperClusterId = await registerCluster(db, zookeeperCluster);
  pulsarClusterId = await registerCluster(db, pulsarCluster);
  pollers.push(startPoller({ databaseUrl, cluster: zookeeperCluster, clusterId: zookeeperClusterId, pollerId: "pulsar-zookeeper-test-1" }));
  pollers.push(startPoller({ databaseUrl, cluster: pulsarCluster, clusterId: pulsarClusterId, pollerId: "pulsar-broker-test-1" }));
}, 240_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  await fleet?.shutdown("kill");
  // The tenant lives in the broker's metadata: gone with the test's ZooKeeper when the broker was killed.
  if (broker?.isRunning()) await cleanupNamespace?.();
  await broker?.stop();
  await admin?.close();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: { in: [zookeeperClusterName, pulsarClusterName] } } });
  await db.$disconnect();
});

describe("Pulsar's load-manager leader, as a real broker writes it into ZooKeeper", () => {
  it("names the leader broker as Pulsar's admin API does, beside the subscription's leader", async () => {
    const adminLeader = await readAdminLeader();
    const node = await readLeaderNode();
    // What Pulsar 4.2.4 writes (3.0.7 the same, seen by hand): LeaderBroker's JSON, the broker id first.
    expect(node.json).toEqual({ brokerId: adminLeader.brokerId, serviceUrl: adminLeader.serviceUrl });
    expect(adminLeader.brokerId).toBe(`127.0.0.1:${broker.webPort}`);
    const row = await waitForLeaderRow(
      (r) => r.holder === adminLeader.brokerId && r.source.sessionExpiry === "server dump",
      "Baton to name the leader broker with its session's deadline",
    );
    expect(row.source).toMatchObject({
      recipe: "ephemeral-node",
      system: "pulsar",
      role: "Pulsar leader broker",
      holderSessionId: node.session,
      holderData: { brokerId: adminLeader.brokerId, serviceUrl: adminLeader.serviceUrl },
      // The one broker registered under /loadbalance/brokers is the leader itself: no standby.
      standbys: [],
    });
    expect(row.source.holderDataUnread).toBeUndefined();
    expect(row.waiters).toEqual([]);
    expect(summarizeKindDetails("zookeeper", row.source)).toBe(`Pulsar leader broker, session ${node.session}`);
    // Beside it, the subscription's leader as Baton's Pulsar kind reads it from the same broker.
    const subscription = await waitFor(
      () => db.heldResource.findFirst({ where: { clusterId: pulsarClusterId, subscription: SUBSCRIPTION, goneAt: null }, select: { holder: true } }),
      (r) => r?.holder === "w1",
      "Baton's Pulsar kind to name w1 the subscription's active consumer",
    );
    expect(subscription).toEqual({ holder: "w1" });
  });

  it("the broker SIGKILLed: its ZooKeeper session expires, the leader node goes (EXPIRED)", async () => {
    const before = await waitForLeaderRow((r) => r.holder !== null && r.source.sessionExpiry === "server dump", "the leader's session deadline");
    const killedAt = Date.now();
    signalProcessGroup(broker.pid, "SIGKILL");
    await waitFor(
      () => Promise.resolve(broker.isRunning()),
      (isRunning) => !isRunning,
      "the broker's JVM to exit",
    );
    await waitForLeaderRow((r) => r.holder === null, "Baton to see the leader node gone");
    const changes = await db.holderChange.findMany({
      where: { clusterId: zookeeperClusterId, resource: { resourceKey: LEADER_PATH }, newSeenAt: { gt: before.lastObservedAt! } },
      orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
      select: { ending: true, fromHolder: true, toHolder: true, newSeenAt: true },
    });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ fromHolder: before.holder, toHolder: null, ending: "EXPIRED" });
    // The server expired the session: not before its timeout (ZooKeeper's deadlines are ticks, so a tick early at most).
    expect(changes[0]!.newSeenAt.getTime() - killedAt).toBeGreaterThanOrEqual(BROKER_SESSION_TIMEOUT_MS - 1_000);
  });
});
