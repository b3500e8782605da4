import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { summarizeKindDetails } from "@/components/locks/kinds/kind-facts";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type KafkaCluster, startKafkaBrokers } from "@/tests/support/kafka-brokers";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// Apache Kafka 3.9.1 in ZooKeeper mode, three brokers on a test ZooKeeper 3.9.3, watched as
// `"systems": [{"system": "kafka", "root": ...}]`: Baton names the controller as Kafka does
// ("broker 2"), the other live brokers as its standbys, and Kafka's own count of elections (the
// controller epoch). The controller is SIGKILLed (its session expires, a standby takes over:
// EXPIRED) and the next one SIGTERMed (Kafka's clean shutdown closes its session: RELEASED); while
// Baton is cut off from ZooKeeper, Kafka elects twice. Every election Kafka counted is one Baton
// recorded, or counted as missed in a change's details.

const KAFKA_SESSION_TIMEOUT_MS = 3_000;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let admin: TestSession;
/** Baton reaches ZooKeeper through it, to be cut off while Kafka elects. */
let proxy: TcpProxy;
let kafka: KafkaCluster;
let poller: RunningPoller;
const run = randomUUID().slice(0, 8);
const clusterName = `kafka-${run}`;
const root = `/kafka-${run}`;
const controllerPath = `${root}/controller`;
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null; newSeenAt: Date; details: unknown };

async function changesSince(since: Date): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: controllerPath }, newSeenAt: { gt: since } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, newSeenAt: true, details: true },
  });
}

async function controllerRow() {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: controllerPath } },
    select: { holder: true, consumers: true, details: true, lastObservedAt: true },
  });
  if (row === null) return null;
  const source = (row.details as { source: Record<string, unknown> }).source;
  return { holder: row.holder, waiters: (row.consumers as { name: string }[]).map((w) => w.name), source, lastObservedAt: row.lastObservedAt };
}

/** Kafka's own count of controller elections, as Kafka wrote it. */
function readControllerEpoch(): Promise<number> {
  return new Promise((resolve, reject) =>
    admin.client.getData(`${root}/controller_epoch`, (error, data) => (error ? reject(error) : resolve(Number(data.toString("utf8"))))),
  );
}

async function registeredBrokers(): Promise<string[]> {
  return admin.children(`${root}/brokers/ids`).catch(() => []);
}

const brokerOf = (holder: string | null) => kafka.brokers.find((b) => `broker ${b.id}` === holder)!;

/** Elections Baton accounts for among `changes`: each new holder is one, plus those its details say were missed. */
function countElections(changes: ChangeRow[]): number {
  return changes.reduce((sum, change) => {
    const missed = (change.details as { sourceAfter?: { electionsMissed?: number | null } }).sourceAfter?.electionsMissed ?? 0;
    return sum + (change.toHolder === null ? 0 : 1) + missed;
  }, 0);
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  admin = await openTestSession(server.connectString);
  kafka = await startKafkaBrokers({ zookeeperConnect: `${server.connectString}${root}`, count: 3, sessionTimeoutMs: KAFKA_SESSION_TIMEOUT_MS });
  try {
    await waitFor(registeredBrokers, (ids) => ids.length === 3, "three Kafka brokers to register", 300, 200);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${kafka.brokers.map((b) => `broker ${b.id}:\n${b.logTail()}`).join("\n")}`);
  }
  proxy = await startTcpProxy(server.port);
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: `127.0.0.1:${proxy.port}`,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 1_000,
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 1_000,
        systems: [{ system: "kafka", root }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "kafka-test-1" });
}, 240_000);

afterAll(async () => {
  await poller?.stop();
  await kafka?.dispose();
  await admin?.close();
  await proxy?.close();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("Kafka's controller, by name", () => {
  it("names the controller as Kafka does, the other brokers as standbys, and Kafka's election count", async () => {
    const row = await waitFor(
      controllerRow,
      (r) => r?.holder?.startsWith("broker ") === true && r.waiters.length === 2 && r.source.sessionExpiry === "server dump",
      "Baton to name the controller with two standbys",
    );
    const epoch = await readControllerEpoch();
    expect(row!.source).toMatchObject({
      recipe: "ephemeral-node",
      system: "kafka",
      role: `Kafka controller (${root})`,
      electionCount: epoch,
      electionCountName: "controller epoch",
      holderData: { brokerId: brokerOf(row!.holder).id },
    });
    expect(row!.waiters).toEqual(kafka.brokers.filter((b) => `broker ${b.id}` !== row!.holder).map((b) => `broker ${b.id}`));
    // The board's cell: what the lock is to Kafka, then its session and Kafka's count.
    expect(summarizeKindDetails("zookeeper", row!.source)).toMatch(
      new RegExp(`^Kafka controller \\(${root}\\), session 0x[0-9a-f]+, controller epoch ${epoch}$`),
    );
  });

  it("the controller SIGKILLed: its session expires, a standby is elected (EXPIRED), every election counted", async () => {
    const before = (await controllerRow())!;
    const since = before.lastObservedAt!;
    const epochBefore = await readControllerEpoch();
    const killed = brokerOf(before.holder);
    await killed.kill();
    const after = await waitFor(controllerRow, (r) => r?.holder !== null && r?.holder !== before.holder, "Baton to name the new controller");
    expect(brokerOf(after!.holder).isRunning()).toBe(true);
    const epochAfter = await readControllerEpoch();
    await waitFor(controllerRow, (r) => r?.source.electionCount === epochAfter, "Baton to read Kafka's count");
    const changes = await changesSince(since);
    expect(changes.find((c) => c.fromHolder === before.holder)).toMatchObject({ ending: "EXPIRED" });
    expect(changes.at(-1)).toMatchObject({ toHolder: after!.holder });
    expect(countElections(changes)).toBe(epochAfter - epochBefore);
  });

  it("Baton cut off from ZooKeeper while Kafka elects twice: the change it sees counts the election it missed", async () => {
    const before = (await controllerRow())!;
    const since = before.lastObservedAt!;
    const epochBefore = await readControllerEpoch();
    proxy.cut();
    await waitFor(
      () => db.heldResource.findUnique({ where: { clusterId_resourceKey: { clusterId, resourceKey: controllerPath } }, select: { staleSince: true } }),
      (row) => row?.staleSince !== null,
      "the controller's hold to go stale",
    );
    // An operator forcing a re-election (deleting /controller; the brokers elect again). Twice,
    // unseen by Baton.
    for (let election = 1; election <= 2; election++) {
      await admin.remove(controllerPath);
      await waitFor(readControllerEpoch, (epoch) => epoch === epochBefore + election, `Kafka's election ${election}`);
      await waitFor(
        () => admin.children(root),
        (children) => children.includes("controller"),
        "a controller node again",
      );
    }
    proxy.restore();
    const epochAfter = await readControllerEpoch();
    await waitFor(controllerRow, (r) => r?.source.electionCount === epochAfter && r.holder !== null, "Baton to read the controller again");
    const changes = await changesSince(since);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ details: { sourceAfter: { electionsMissed: 1, electionCount: epochAfter } } });
    expect(countElections(changes)).toBe(epochAfter - epochBefore);
  });

  it("the controller SIGTERMed: Kafka's clean shutdown closes its session (RELEASED), the last broker is elected, every election counted", async () => {
    const before = (await controllerRow())!;
    const since = before.lastObservedAt!;
    const epochBefore = await readControllerEpoch();
    await brokerOf(before.holder).terminate();
    const last = kafka.brokers.find((b) => b.isRunning())!;
    const after = await waitFor(controllerRow, (r) => r?.holder === `broker ${last.id}`, `Baton to name broker ${last.id} the controller`);
    expect(after!.waiters).toEqual([]);
    const epochAfter = await readControllerEpoch();
    await waitFor(controllerRow, (r) => r?.source.electionCount === epochAfter, "Baton to read Kafka's count");
    const changes = await changesSince(since);
    expect(changes.find((c) => c.fromHolder === before.holder)).toMatchObject({ ending: "RELEASED" });
    expect(countElections(changes)).toBe(epochAfter - epochBefore);
  });
});
