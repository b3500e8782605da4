import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type HelixControllers, startHelixControllers } from "@/tests/support/helix-controllers";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// Apache Helix 1.4.3 (Pinot's controllers are Helix controllers): two standalone controllers of
// one cluster, watched as `"systems": [{"system": "helix", "cluster": ...}]`. Baton names the
// leading controller by its instance name from the ZNRecord in /<cluster>/CONTROLLER/LEADER; it
// is SIGKILLed (its session expires, the other takes over: EXPIRED), then the other is SIGTERMed
// (Helix's shutdown hook disconnects it: RELEASED, and the cluster has no controller).

const SESSION_TIMEOUT_MS = 3_000;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let helix: HelixControllers;
let poller: RunningPoller;
const run = randomUUID().slice(0, 8);
const clusterName = `helix-${run}`;
const helixCluster = `pinot-${run}`;
const leaderPath = `/${helixCluster}/CONTROLLER/LEADER`;
let cluster: ClusterConfig;
let clusterId: number;

async function leaderRow() {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: leaderPath } },
    select: { holder: true, details: true },
  });
  return row === null ? null : { holder: row.holder, source: (row.details as { source: Record<string, unknown> }).source };
}

async function changes() {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: leaderPath }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

const controllerNamed = (name: string | null) => helix.controllers.find((c) => c.name === name)!;

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  helix = await startHelixControllers({
    zookeeper: server.connectString,
    cluster: helixCluster,
    names: ["controller-a", "controller-b"],
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
  });
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: server.connectString,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 1_000,
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 1_000,
        systems: [{ system: "helix", cluster: helixCluster }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "helix-test-1" });
}, 180_000);

afterAll(async () => {
  await poller?.stop();
  await helix?.dispose();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("Helix's leading controller, by name", () => {
  it("names the leading controller by its instance name, with what Helix writes of it", async () => {
    let row: Awaited<ReturnType<typeof leaderRow>>;
    try {
      row = await waitFor(leaderRow, (r) => r?.holder === "controller-a" || r?.holder === "controller-b", "a Helix controller to lead", 300);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${helix.controllers.map((c) => `${c.name}:\n${c.logTail()}`).join("\n")}`);
    }
    expect(row!.source).toMatchObject({
      recipe: "ephemeral-node",
      system: "helix",
      role: `Helix controller of ${helixCluster}`,
      holderData: { instance: row!.holder, helixVersion: "1.4.3" },
    });
    expect(String(row!.source.holderData && (row!.source.holderData as { liveInstance: string }).liveInstance)).toMatch(/^\d+@/);
  });

  it("the leader SIGKILLed: its session expires, the other controller leads (EXPIRED)", async () => {
    const before = (await leaderRow())!.holder!;
    const other = helix.controllers.find((c) => c.name !== before)!;
    await controllerNamed(before).kill();
    await waitFor(leaderRow, (r) => r?.holder === other.name, `${other.name} to lead`);
    expect((await changes()).find((c) => c.fromHolder === before)).toMatchObject({ ending: "EXPIRED" });
  });

  it("the last controller SIGTERMed: Helix disconnects it (RELEASED), and the cluster has no controller", async () => {
    const before = (await leaderRow())!.holder!;
    await controllerNamed(before).terminate();
    await waitFor(leaderRow, (r) => r !== null && r.holder === null, "the cluster to have no leading controller");
    expect((await changes()).at(-1)).toMatchObject({ kind: "HOLDER_LOST", fromHolder: before, ending: "RELEASED" });
  });
});
