import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { zookeeperKind } from "@/lib/sources/zookeeper/zookeeper-kind";
import { DUMP_ALLOWED_NOTE } from "@/lib/sources/zookeeper/session-dump";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { openTestSession, type TestSession } from "@/tests/support/zookeeper-nodes";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// The worker's poller against a real ZooKeeper 3.9.3 and the real PostgreSQL, with lock nodes
// laid out by hand as Kazoo and Curator lay them out (the Curator recipes themselves run on the
// JVM in zookeeper-curator.test.ts): holder and waiters in sequence order, a handoff, a release,
// locks found under a root, a server that stops answering, and a server restart.

const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let admin: TestSession;
const sessions: TestSession[] = [];
const pollers: RunningPoller[] = [];
const run = randomUUID().slice(0, 8);
const clusterName = `zookeeper-${run}`;
const kazooPath = `/baton-test-${run}/locks/kazoo-job`;
const latchPath = `/baton-test-${run}/election/orders`;
const root = `/baton-test-${run}/apps`;
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null; isDuringGap: boolean };

async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, isDuringGap: true },
  });
}

async function lockRow(key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { kind: true, holder: true, holderToken: true, expiresAt: true, consumers: true, details: true, staleSince: true, lastError: true, goneAt: true },
  });
}

const waitersOf = (row: Awaited<ReturnType<typeof lockRow>>) => (row?.consumers as { name: string }[] | undefined)?.map((w) => w.name);

async function participant(): Promise<TestSession> {
  const session = await openTestSession(server.connectString, 4_000);
  sessions.push(session);
  return session;
}

/** Kazoo's Lock: `<uuid hex>__lock__<seq>` holding the contender's identifier. */
function kazooNode(session: TestSession, path: string, identifier: string): Promise<string> {
  return session.create(`${path}/${randomUUID().replaceAll("-", "")}__lock__`, identifier, "ephemeral-sequential");
}

/** Curator's LeaderLatch: `_c_<uuid>-latch-<seq>` holding the participant id. */
function latchNode(session: TestSession, path: string, id: string): Promise<string> {
  return session.create(`${path}/_c_${randomUUID()}-latch-`, id, "ephemeral-sequential");
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  // tickTime 500 ms: sessions are clamped to 1..10 s, so expiries happen within a test.
  server = await startZookeeperServer({ tickTimeMs: 500 });
  admin = await openTestSession(server.connectString);
  for (const path of [kazooPath, latchPath, root]) await admin.mkdirp(path);
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: server.connectString,
        sessionTimeoutMs: 4_000,
        pollIntervalMs: 500,
        discoveryIntervalMs: 1_000,
        requestTimeoutMs: 1_000,
        paths: [
          { path: kazooPath, recipe: "kazoo-lock" },
          { path: latchPath, recipe: "curator-leader-latch", mustBeHeld: true },
        ],
        root: { path: root },
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "zookeeper-test-1" }));
}, 120_000);

afterAll(async () => {
  for (const poller of pollers) await poller.stop();
  for (const session of [...sessions, admin]) await session?.close();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("the poller on ZooKeeper locks laid out by hand", () => {
  it("registers the cluster as a ZooKeeper cluster with its paths and root", async () => {
    const row = await db.cluster.findUniqueOrThrow({ where: { name: clusterName }, select: { kind: true, adminUrl: true, scope: true } });
    expect(row).toMatchObject({
      kind: "ZOOKEEPER",
      adminUrl: server.connectString,
      scope: {
        paths: [
          { path: kazooPath, recipe: "kazoo-lock", mustBeHeld: false },
          { path: latchPath, recipe: "curator-leader-latch", mustBeHeld: true },
        ],
        root: { path: root },
      },
    });
  });

  it("reads Kazoo's layout: the lowest sequence holds, the others wait in order; a handoff, then a release", async () => {
    const [one, two, three] = [await participant(), await participant(), await participant()];
    const first = await kazooNode(one, kazooPath, "worker-1");
    await kazooNode(two, kazooPath, "worker-2");
    await kazooNode(three, kazooPath, "");
    const held = await waitFor(
      () => lockRow(kazooPath),
      (row) => row?.holder === "worker-1" && waitersOf(row)?.length === 2,
      "worker-1 to be seen holding with two waiters",
    );
    expect(held).toMatchObject({ kind: "ZOOKEEPER_LOCK", holderToken: `${one.sessionId}/${first.split("/").at(-1)}` });
    // An empty identifier: the waiter is named by its node.
    expect(waitersOf(held)).toEqual(["worker-2", expect.stringMatching(/^[0-9a-f]{32}__lock__\d{10}$/)]);
    expect(held!.details).toMatchObject({ source: { recipe: "kazoo-lock", holderSessionId: one.sessionId, sessionExpiry: "server dump" } });
    // The server's deadline for worker-1's live session: about one session timeout ahead.
    const leftMs = held!.expiresAt!.getTime() - Date.now();
    expect(leftMs).toBeGreaterThan(-1_000);
    expect(leftMs).toBeLessThan(5_000);

    await one.remove(first);
    const handoff = await waitFor(
      () => changesOf(kazooPath),
      (rows) => rows.length >= 1,
      "the handoff to be recorded",
    );
    // A release and an acquire between two reads: the schema's TAKEN_OVER.
    expect(handoff).toEqual([{ kind: "HOLDER_CHANGED", ending: "TAKEN_OVER", fromHolder: "worker-1", toHolder: "worker-2", isDuringGap: false }]);
    await two.close();
    await three.close();
    const changes = await waitFor(
      () => changesOf(kazooPath),
      (rows) => rows.some((r) => r.kind === "HOLDER_LOST"),
      "the release to be recorded",
    );
    expect(changes.at(-1)).toMatchObject({ kind: "HOLDER_LOST", ending: "RELEASED", toHolder: null, isDuringGap: false });
  });

  it("finds an election under the root and reads Curator's LeaderLatch layout", async () => {
    const election = `${root}/billing/leader`;
    await admin.mkdirp(election);
    const pod = await participant();
    await latchNode(pod, election, "pod-a");
    const row = await waitFor(
      () => lockRow(election),
      (r) => r?.holder === "pod-a",
      "the election under the root to be found and read",
    );
    expect(row!.details).toMatchObject({ source: { recipe: "curator-leader-latch", holderSessionId: pod.sessionId } });
    // The parent directories are no locks.
    expect(await lockRow(`${root}/billing`)).toBeNull();
  });

  it("finds an election created under the root between two walks, by the watches the walk left on its directories", async () => {
    const slowRoot = `/baton-test-${run}/slow-walk`;
    await admin.mkdirp(`${slowRoot}/existing`);
    const slowCluster = loadConfig({
      BATON_CLUSTERS: JSON.stringify([
        {
          kind: "zookeeper",
          name: `${clusterName}-slow`,
          connectString: server.connectString,
          pollIntervalMs: 600_000,
          discoveryIntervalMs: 600_000,
          requestTimeoutMs: 1_000,
          root: { path: slowRoot },
        },
      ]),
    }).clusters[0]!;
    const slowId = await registerCluster(db, slowCluster);
    const slowPoller = startPoller({ databaseUrl, cluster: slowCluster, clusterId: slowId, pollerId: "zookeeper-test-slow" });
    try {
      // The first cycle walks the root (nothing held yet) and reads nothing.
      await waitFor(
        () => db.pollRun.count({ where: { clusterId: slowId } }),
        (n) => n > 0,
        "the first walk",
      );
      const pod = await participant();
      // Curator creates the election's node, then its contender: both after the walk.
      const election = `${slowRoot}/new-service/leader`;
      await admin.mkdirp(election);
      await latchNode(pod, election, "pod-new");
      const row = await waitFor(
        () => db.heldResource.findUnique({ where: { clusterId_resourceKey: { clusterId: slowId, resourceKey: election } }, select: { holder: true } }),
        (r) => r?.holder === "pod-new",
        "the new election to be found without a walk",
        50,
        200,
      );
      expect(row).toEqual({ holder: "pod-new" });
    } finally {
      await slowPoller.stop();
      await db.cluster.deleteMany({ where: { name: `${clusterName}-slow` } });
    }
  });

  it("checkReachable: ok while the server answers, saying it allows `dump`; down with a reason while it is stopped", async () => {
    const config = cluster as Parameters<typeof zookeeperKind.checkReachable>[0];
    expect(await zookeeperKind.checkReachable(config, 1_000)).toEqual({ status: "ok", reason: DUMP_ALLOWED_NOTE });
    expect(zookeeperKind.describe(config)).toEqual({
      endpoint: server.connectString,
      scope: `${kazooPath} (kazoo-lock), ${latchPath} (curator-leader-latch, must be held), every lock under ${root} (auto, depth 4)`,
      budget: "5000 requests/s",
      auth: "none; session 4000 ms; session dump auto",
    });
  });

  it("a ZooKeeper that stops answering makes its locks stale, never free; when it answers again nothing was invented", async () => {
    const pod = await openTestSession(server.connectString, 10_000);
    sessions.push(pod);
    await latchNode(pod, latchPath, "pod-x");
    await waitFor(
      () => lockRow(latchPath),
      (row) => row?.holder === "pod-x",
      "pod-x to be seen leading",
    );
    const before = (await changesOf(latchPath)).length;
    server.pause();
    try {
      const stale = await waitFor(
        () => lockRow(latchPath),
        (row) => row?.staleSince !== null && row?.staleSince !== undefined,
        "the lock to go stale",
        100,
        300,
      );
      expect(stale).toMatchObject({ holder: "pod-x" });
      expect(stale!.lastError).toMatch(/ZooKeeper/);
    } finally {
      server.resume();
    }
    const back = await waitFor(
      () => lockRow(latchPath),
      (row) => row?.staleSince === null,
      "the lock to be current again",
    );
    expect(back).toMatchObject({ holder: "pod-x" });
    expect((await changesOf(latchPath)).length).toBe(before);
  });

  it("a server restart: stale while down, the same holder (its session survives) once back, no duplicate rows; a restarted poller resumes", async () => {
    await waitFor(
      () => lockRow(latchPath),
      (row) => row?.holder === "pod-x" && row.staleSince === null,
      "pod-x to lead",
    );
    const before = await changesOf(latchPath);
    await server.stop();
    await waitFor(
      () => lockRow(latchPath),
      (row) => row?.staleSince !== null,
      "the lock to go stale while the server is down",
      100,
      300,
    );
    const down = await zookeeperKind.checkReachable(cluster as Parameters<typeof zookeeperKind.checkReachable>[0], 500);
    expect(down.status).toBe("down");
    expect(down.reason).toMatch(/^ZooKeeper 127\.0\.0\.1:\d+: not connected within 500 ms/);
    await pollers.shift()!.stop();
    await server.restart();
    pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "zookeeper-test-2" }));
    const back = await waitFor(
      () => lockRow(latchPath),
      (row) => row?.staleSince === null,
      "the lock to be current after the restart",
      150,
      300,
    );
    expect(back).toMatchObject({ holder: "pod-x" });
    expect(await changesOf(latchPath)).toEqual(before);
    const rows = await db.heldResource.count({ where: { clusterId, resourceKey: latchPath } });
    expect(rows).toBe(1);
  });
});
