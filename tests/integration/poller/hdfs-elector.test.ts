import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type HadoopElector, startHadoopElector } from "@/tests/support/hadoop-electors";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// HDFS NameNode HA as ZooKeeper sees it: Hadoop 3.4.1's own ActiveStandbyElector (what the ZKFC
// elects with), two electors for nameservice ns1 writing HDFS's own ActiveNodeInfo protobuf,
// watched as `"systems": [{"system": "hdfs", "root": ...}]` (every nameservice under the parent).
// Baton names the active NameNode as HDFS does ("nn1 at host:8020"); the active one's failover
// controller is SIGKILLed (its session expires, the standby takes over after fencing: EXPIRED),
// then the other quits the election cleanly (RELEASED: no active NameNode, which must not be).

const SESSION_TIMEOUT_MS = 3_000;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
const electors: HadoopElector[] = [];
let poller: RunningPoller;
const run = randomUUID().slice(0, 8);
const clusterName = `hdfs-${run}`;
const parent = `/hadoop-ha-${run}`;
const lockPath = `${parent}/ns1/ActiveStandbyElectorLock`;
let cluster: ClusterConfig;
let clusterId: number;

async function lockRow() {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: lockPath } },
    select: { holder: true, consumers: true, details: true },
  });
  return row === null
    ? null
    : {
        holder: row.holder,
        source: (row.details as { source: Record<string, unknown>; pattern: string }).source,
        pattern: (row.details as { pattern: string }).pattern,
      };
}

async function changes() {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: lockPath }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

async function elector(namenodeId: string, port: number): Promise<HadoopElector> {
  const started = await startHadoopElector({
    zookeeper: server.connectString,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    parent,
    nameservice: "ns1",
    namenodeId,
    host: `${namenodeId}.example.com`,
    port,
  });
  electors.push(started);
  return started;
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: server.connectString,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 1_000,
        // Far beyond the test: the nameservice (and its parent, missing at start) is found through
        // the watch discovery leaves on the parent, not by the next walk.
        discoveryIntervalMs: 600_000,
        requestTimeoutMs: 1_000,
        systems: [{ system: "hdfs", root: parent }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "hdfs-test-1" });
}, 180_000);

afterAll(async () => {
  for (const e of electors) await e.kill().catch(() => undefined);
  await poller?.stop();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("HDFS NameNode HA, by name", () => {
  it("finds the nameservice, and names the active NameNode from the ZKFC's protobuf", async () => {
    const nn1 = await elector("nn1", 8020);
    await nn1.next("active");
    const nn2 = await elector("nn2", 8020);
    await nn2.next("standby");
    const row = await waitFor(lockRow, (r) => r?.holder === "nn1 at nn1.example.com:8020", "Baton to name nn1 the active NameNode of ns1");
    expect(row!.pattern).toBe(`${parent}/*/ActiveStandbyElectorLock`);
    expect(row!.source).toMatchObject({
      recipe: "ephemeral-node",
      system: "hdfs",
      role: "HDFS NameNode ns1",
      holderData: { nameserviceId: "ns1", namenodeId: "nn1", hostname: "nn1.example.com", port: 8020, zkfcPort: 8021 },
    });
    expect(row!.source.holderDataUnread).toBeUndefined();
  });

  it("the active one's failover controller SIGKILLed: its session expires, the standby fences it and takes over (EXPIRED)", async () => {
    const [nn1, nn2] = electors;
    await nn1!.kill();
    await nn2!.next("active");
    await waitFor(lockRow, (r) => r?.holder === "nn2 at nn2.example.com:8020", "Baton to name nn2 active");
    const seen = await changes();
    expect(seen.find((c) => c.fromHolder === "nn1 at nn1.example.com:8020")).toMatchObject({ ending: "EXPIRED" });
  });

  it("the last one quits the election cleanly: RELEASED, and ns1 has no active NameNode", async () => {
    await electors[1]!.quit();
    await waitFor(lockRow, (r) => r !== null && r.holder === null, "ns1's lock to be free");
    expect((await changes()).at(-1)).toMatchObject({ kind: "HOLDER_LOST", fromHolder: "nn2 at nn2.example.com:8020", ending: "RELEASED" });
  });
});
