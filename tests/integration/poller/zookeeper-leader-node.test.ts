import { randomUUID } from "node:crypto";

import zookeeper from "node-zookeeper-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// A node that is itself the lock (`"recipe": "ephemeral-node"`: Patroni's leader, Kafka's
// /controller...) against a real ZooKeeper 3.9.3: held while it exists, by what its data names;
// its token the owning session and the node's creation zxid. A session that closes releases it,
// one that is cut off expires it, a member elected again is a new hold; data nobody can read keeps
// the hold (named by its session, said once in the log); Patroni's members are the standbys.

const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
const sessions: TestSession[] = [];
const proxies: TcpProxy[] = [];
let poller: RunningPoller;
const logs: string[] = [];
const run = randomUUID().slice(0, 8);
const clusterName = `leader-node-${run}`;
const base = `/baton-test-${run}`;
const leaderPath = `${base}/pg/leader`;
const binaryPath = `${base}/blob/leader`;
const patroniNamespace = `${base}/service`;
const patroniLeader = `${patroniNamespace}/orders/leader`;
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null; details: unknown };

async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, details: true },
  });
}

async function lockRow(key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, consumers: true, details: true, staleSince: true },
  });
}

const sourceOf = (row: Awaited<ReturnType<typeof lockRow>>) => (row?.details as { source?: Record<string, unknown> } | undefined)?.source;

async function session(connectString = server.connectString, timeoutMs = 10_000): Promise<TestSession> {
  const opened = await openTestSession(connectString, timeoutMs);
  sessions.push(opened);
  return opened;
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  const admin = await session();
  for (const dir of [`${base}/pg`, `${base}/blob`, `${patroniNamespace}/orders/members`]) await admin.mkdirp(dir);
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
        paths: [
          { path: leaderPath, recipe: "ephemeral-node", mustBeHeld: true },
          { path: binaryPath, recipe: "ephemeral-node" },
        ],
        systems: [{ system: "patroni", namespace: patroniNamespace }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "leader-node-test-1", logs });
}, 180_000);

afterAll(async () => {
  await poller?.stop();
  for (const s of sessions) await s.close().catch(() => undefined);
  for (const p of proxies) await p.close().catch(() => undefined);
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("a node that is the lock", () => {
  it("a path that does not exist is free; the node created is held by what its data names, its token its session and zxid", async () => {
    const free = await waitFor(
      () => lockRow(leaderPath),
      (row) => row !== null,
      "the leader path to be read",
    );
    expect(free).toMatchObject({ holder: null, holderToken: null });
    expect(sourceOf(free)).toMatchObject({ recipe: "ephemeral-node", lockNodeExists: false });

    const pg1 = await session();
    await pg1.create(leaderPath, "pg1", "ephemeral");
    // The `dump` read with the first sight may predate the session: the next one lists it.
    const held = await waitFor(
      () => lockRow(leaderPath),
      (row) => row?.holder === "pg1" && sourceOf(row)?.sessionExpiry === "server dump",
      "pg1 to hold the leader node, its session's deadline known",
    );
    expect(held!.holderToken).toMatch(new RegExp(`^${pg1.sessionId}/0x[0-9a-f]+$`));
    expect(sourceOf(held)).toMatchObject({ lockNodeExists: true, holderSessionId: pg1.sessionId, sessionExpiry: "server dump" });

    // Elected again by the same member (Patroni re-acquiring after a demote): deleted and created
    // in one transaction, so no read can see it free. A new node: a new hold (the same holder under
    // a new token: a hidden flap).
    await new Promise<void>((resolve, reject) =>
      pg1.client
        .transaction()
        .remove(leaderPath, -1)
        .create(leaderPath, Buffer.from("pg1"), zookeeper.CreateMode.EPHEMERAL)
        .commit((error) => (error ? reject(error) : resolve())),
    );
    const again = await waitFor(
      () => changesOf(leaderPath),
      (rows) => rows.some((r) => r.kind === "HIDDEN_FLAP"),
      "the re-election to be a change",
    );
    const reElection = again.find((r) => r.kind === "HIDDEN_FLAP")!;
    expect(reElection).toMatchObject({ fromHolder: "pg1", toHolder: "pg1" });
    const tokens = reElection.details as { tokenBefore: string; tokenAfter: string };
    expect(tokens.tokenBefore).not.toBe(tokens.tokenAfter);
    expect(tokens.tokenAfter.startsWith(`${pg1.sessionId}/`)).toBe(true);

    // The member's session closes (a clean shutdown): the node goes with it, before its deadline.
    await pg1.close();
    const released = await waitFor(
      () => changesOf(leaderPath),
      (rows) => rows.some((r) => r.kind === "HOLDER_LOST"),
      "the close to end the hold",
    );
    expect(released.find((r) => r.kind === "HOLDER_LOST")).toMatchObject({ fromHolder: "pg1", toHolder: null, ending: "RELEASED" });
  });

  it("a member cut off from ZooKeeper keeps the node until its session expires: EXPIRED, and the next member's node is a new hold", async () => {
    const proxy = await startTcpProxy(server.port);
    proxies.push(proxy);
    const pg2 = await session(`127.0.0.1:${proxy.port}`, 2_000);
    await pg2.create(leaderPath, "pg2", "ephemeral");
    await waitFor(
      () => lockRow(leaderPath),
      (row) => row?.holder === "pg2",
      "pg2 to hold",
    );
    proxy.cut();
    const expired = await waitFor(
      () => changesOf(leaderPath),
      (rows) => rows.some((r) => r.fromHolder === "pg2"),
      "pg2's session to expire",
    );
    expect(expired.find((r) => r.fromHolder === "pg2")).toMatchObject({ kind: "HOLDER_LOST", ending: "EXPIRED", toHolder: null });

    const pg3 = await session();
    await pg3.create(leaderPath, "pg3", "ephemeral");
    await waitFor(
      () => lockRow(leaderPath),
      (row) => row?.holder === "pg3",
      "pg3 to hold",
    );
  });

  it("data that names nobody (1 MB of binary) keeps the hold, named by its session, and says so once in the log", async () => {
    const blob = await session();
    await new Promise<void>((resolve, reject) =>
      blob.client.create(binaryPath, Buffer.alloc(1_000_000, 0xa7), zookeeper.CreateMode.EPHEMERAL, (error) => (error ? reject(error) : resolve())),
    );
    const held = await waitFor(
      () => lockRow(binaryPath),
      (row) => row?.holder === blob.sessionId,
      "the binary node to be held by its session",
    );
    expect(sourceOf(held)).toMatchObject({ holderDataUnread: "its 1000000 bytes of data are not text" });
    // Three full reads later: still one line, and the hold still read.
    const runsBefore = await db.pollRun.count({ where: { clusterId } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId } }),
      (count) => count >= runsBefore + 3,
      "three more polls",
    );
    const said = logs.filter((line) => line.includes(`${binaryPath}: the holder is named by its session`));
    expect(said, logs.join("\n")).toHaveLength(1);
    expect(said[0]).toContain(`the holder is named by its session ${blob.sessionId}: its 1000000 bytes of data are not text`);
    expect((await lockRow(binaryPath))!.staleSince).toBeNull();
  });

  it("Patroni on ZooKeeper by name: each scope's leader node, held by the member it names, the other members its standbys", async () => {
    const pg0 = await session();
    const pg1 = await session();
    await pg0.create(`${patroniNamespace}/orders/members/pg0`, '{"role":"master"}', "ephemeral");
    await pg1.create(`${patroniNamespace}/orders/members/pg1`, '{"role":"replica"}', "ephemeral");
    await pg0.create(patroniLeader, "pg0", "ephemeral");
    const held = await waitFor(
      () => lockRow(patroniLeader),
      (row) => row?.holder === "pg0",
      "pg0 to be the orders primary",
    );
    expect((held!.consumers as { name: string }[]).map((w) => w.name)).toEqual(["pg1"]);
    expect(sourceOf(held)).toMatchObject({ system: "patroni", role: "Patroni cluster orders", standbys: ["pg1"] });

    // Patroni's switchover on ZooKeeper: the old primary's session restarts (its nodes go), pg1 leads.
    await pg0.close();
    await pg1.create(patroniLeader, "pg1", "ephemeral");
    await waitFor(
      () => lockRow(patroniLeader),
      (row) => row?.holder === "pg1",
      "pg1 to be the orders primary",
    );

    // The failover node, created and deleted after the cluster was read (its side nodes are read
    // only where the scope's listing has them; the listing is kept until its child watch fires).
    const failoverPath = `${patroniNamespace}/orders/failover`;
    await pg1.create(failoverPath, '{"leader":"pg1","member":"pg0"}', "persistent");
    const asked = await waitFor(
      () => lockRow(patroniLeader),
      (row) => (sourceOf(row)?.failover as { member?: string } | null | undefined)?.member === "pg0",
      "the switchover request to pg0 to show",
    );
    expect(sourceOf(asked)?.failover).toMatchObject({ leader: "pg1", member: "pg0" });
    await new Promise<void>((resolve, reject) => pg1.client.remove(failoverPath, (error) => (error ? reject(error) : resolve())));
    await waitFor(
      () => lockRow(patroniLeader),
      (row) => row !== null && sourceOf(row)?.failover === null,
      "the switchover request to be gone",
    );
  });

  it("a ZooKeeper that does not answer leaves the node's hold stale with its holder, never free", async () => {
    server.pause();
    try {
      const stale = await waitFor(
        () => lockRow(leaderPath),
        (row) => row?.staleSince !== null,
        "the leader node to go stale",
      );
      expect(stale!.holder).toBe("pg3");
    } finally {
      server.resume();
    }
    await waitFor(
      () => lockRow(leaderPath),
      (row) => row?.staleSince === null && row.holder === "pg3",
      "the leader node to be read again",
    );
  });
});
