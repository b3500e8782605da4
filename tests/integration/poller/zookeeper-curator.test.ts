import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { describeKindChange } from "@/components/locks/kinds/kind-facts";
import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type CuratorContender, startCuratorContender } from "@/tests/support/curator-contender";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// The worker's poller against a real ZooKeeper 3.9.3 and Apache Curator 5.7.1 contenders on the
// JVM (one JVM, one session per participant): a LeaderLatch election of three, its leader
// crashing (the lock stays until the session times out, then moves: EXPIRED), an
// InterProcessMutex released cleanly (RELEASED), a holder stalled past its session, and an
// InterProcessSemaphoreMutex (whose queue is its `leases` child), and a LeaderSelector (a mutex
// whose data is the participant id).

const SESSION_TIMEOUT_MS = 3_000;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
const contenders: CuratorContender[] = [];
let poller: RunningPoller;
const run = randomUUID().slice(0, 8);
const clusterName = `curator-${run}`;
const electionPath = `/baton-test-${run}/election/orders`;
const releasePath = `/baton-test-${run}/locks/release-job`;
const stallPath = `/baton-test-${run}/locks/stall-job`;
const semaphorePath = `/baton-test-${run}/locks/semaphore-job`;
const selectorPath = `/baton-test-${run}/election/billing`;
let cluster: ClusterConfig;
let clusterId: number;

type ChangeRow = {
  kind: string;
  ending: string | null;
  fromHolder: string | null;
  toHolder: string | null;
  isDuringGap: boolean;
  newSeenAt: Date;
  details: unknown;
};

/** The changes after the first acquire (each configured path is first seen free: its node does not exist yet). */
async function changesOf(key: string): Promise<ChangeRow[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true, isDuringGap: true, newSeenAt: true, details: true },
  });
}

async function lockRow(key: string) {
  return db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, holderToken: true, expiresAt: true, consumers: true, details: true, staleSince: true },
  });
}

const waitersOf = (row: Awaited<ReturnType<typeof lockRow>>) => (row?.consumers as { name: string }[] | undefined)?.map((w) => w.name);

async function contender(): Promise<CuratorContender> {
  const started = await startCuratorContender(server.connectString, SESSION_TIMEOUT_MS);
  contenders.push(started);
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
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 1_000,
        paths: [
          { path: electionPath, recipe: "curator-leader-latch", mustBeHeld: true },
          { path: releasePath, recipe: "curator-mutex" },
          { path: stallPath, recipe: "curator-mutex" },
          { path: semaphorePath, recipe: "curator-mutex" },
          { path: selectorPath, recipe: "curator-leader-selector", mustBeHeld: true },
        ],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "curator-test-1" });
}, 180_000);

afterAll(async () => {
  for (const c of contenders) await c.kill().catch(() => undefined);
  await poller?.stop();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("the poller on Curator's recipes", () => {
  it("a LeaderLatch election of three: the lowest sequence leads, the others wait in order; the leader crashes and leadership moves once its session expires", async () => {
    const [a, b, c] = [await contender(), await contender(), await contender()];
    await a.latch("e", electionPath, "pod-a");
    await a.next("e", "leader");
    await b.latch("e", electionPath, "pod-b");
    // Each JVM creates its node on its own time: pod-c joins only once pod-b's node is there, so
    // the queue's order is the one this test names (on a loaded machine c could overtake b).
    await waitFor(
      () => lockRow(electionPath),
      (row) => waitersOf(row)?.includes("pod-b") === true,
      "pod-b to wait",
    );
    await c.latch("e", electionPath, "pod-c");
    const held = await waitFor(
      () => lockRow(electionPath),
      (row) => row?.holder === "pod-a" && waitersOf(row)?.length === 2,
      "pod-a to lead with two waiters",
    );
    expect(waitersOf(held)).toEqual(["pod-b", "pod-c"]);
    expect(held!.holderToken).toMatch(new RegExp(`^${a.sessionId}/_c_[0-9a-f-]{36}-latch-0000000000$`));
    expect(held!.details).toMatchObject({ source: { recipe: "curator-leader-latch", holderSessionId: a.sessionId, sessionExpiry: "server dump" } });

    await a.kill();
    const killedAt = Date.now();
    // A crashed leader still holds the latch until the server expires its session.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await lockRow(electionPath))!.holder).toBe("pod-a");
    await b.next("e", "leader");
    const changes = await waitFor(
      () => changesOf(electionPath),
      (rows) => rows.length > 0,
      "the leadership change to be recorded",
    );
    expect(changes.map(({ kind, ending, fromHolder, toHolder, isDuringGap }) => ({ kind, ending, fromHolder, toHolder, isDuringGap }))).toEqual([
      { kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: "pod-a", toHolder: "pod-b", isDuringGap: false },
    ]);
    // The session timed out (3 s asked; the server expires it between 2/3 of that and all of it after the last heartbeat).
    expect(changes[0]!.newSeenAt.getTime() - killedAt).toBeGreaterThan(1_500);
    expect(waitersOf(await lockRow(electionPath))).toEqual(["pod-c"]);
    // The queue's head before the kill (the next sequence node) is who took over: scored as predicted.
    const scored = await db.holderChange.findMany({
      where: { clusterId, resource: { resourceKey: electionPath }, kind: "HOLDER_CHANGED" },
      select: { predictedHolder: true, prediction: true },
    });
    expect(scored).toEqual([{ predictedHolder: "pod-b", prediction: "CONFIRMED" }]);
  });

  it("an InterProcessMutex released cleanly: acquired (the holder's IP as its name), then released", async () => {
    const d = await contender();
    await d.mutex("m", releasePath);
    await d.next("m", "acquired");
    const held = await waitFor(
      () => lockRow(releasePath),
      (row) => row?.holder !== null && row?.holder !== undefined,
      "the mutex to be seen held",
    );
    expect(held!.holder).toBe("127.0.0.1");
    expect(held!.holderToken).toMatch(new RegExp(`^${d.sessionId}/_c_[0-9a-f-]{36}-lock-0000000000$`));
    await d.release("m");
    const changes = await waitFor(
      () => changesOf(releasePath),
      (rows) => rows.some((r) => r.kind === "HOLDER_LOST"),
      "the release to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_LOST", "RELEASED", "127.0.0.1", null]]);
  });

  it("a holder stalled (SIGSTOP) past its session: the lock expires while held and the waiter gets it; the holder wakes up to a lost lock and nothing more is recorded", async () => {
    const [e, f] = [await contender(), await contender()];
    await e.mutex("m", stallPath);
    await e.next("m", "acquired");
    await f.mutex("m", stallPath);
    const held = await waitFor(
      () => lockRow(stallPath),
      (row) => row?.holderToken?.startsWith(`${e.sessionId}/`) === true && waitersOf(row)?.length === 1,
      "e to hold with f waiting",
    );
    e.stall();
    await f.next("m", "acquired");
    const changes = await waitFor(
      () => changesOf(stallPath),
      (rows) => rows.length > 0,
      "the expiry to be recorded",
    );
    // Both run on this machine: Curator's default data is the IP, so the same name holds at both
    // ends, with another session: a hidden flap, ended by expiry.
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HIDDEN_FLAP", "EXPIRED", "127.0.0.1", "127.0.0.1"]]);
    expect(changes[0]!.details).toMatchObject({ tokenBefore: held!.holderToken, tokenAfter: expect.stringMatching(new RegExp(`^${f.sessionId}/`)) });
    // The change keeps both holders' sessions: the lock page marks a new session of the same participant.
    expect(changes[0]!.details).toMatchObject({ sourceBefore: { holderSessionId: e.sessionId }, sourceAfter: { holderSessionId: f.sessionId } });
    const words = describeKindChange("zookeeper", { ...changes[0]!, details: changes[0]!.details as Record<string, unknown> });
    expect(words).toMatchObject({ isLoud: true, words: expect.stringContaining(`session ${e.sessionId} → ${f.sessionId}`) });
    e.wake();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await lockRow(stallPath))!.holderToken).toMatch(new RegExp(`^${f.sessionId}/`));
    expect(await changesOf(stallPath)).toHaveLength(1);
  });

  it("an InterProcessSemaphoreMutex: read from its leases, the waiter's lease queued behind the holder's; a release hands it over", async () => {
    const [g, h] = [await contender(), await contender()];
    await g.semaphore("s", semaphorePath);
    await g.next("s", "acquired");
    await h.semaphore("s", semaphorePath);
    const held = await waitFor(
      () => lockRow(semaphorePath),
      (row) => row?.holderToken?.startsWith(`${g.sessionId}/`) === true && waitersOf(row)?.length === 1,
      "g to hold with h's lease waiting",
    );
    expect(held!.holderToken).toMatch(/\/_c_[0-9a-f-]{36}-lease-0000000000$/);
    expect(held!.details).toMatchObject({ source: { recipe: "curator-semaphore-mutex", contenderDir: `${semaphorePath}/leases` } });
    await g.release("s");
    await h.next("s", "acquired");
    const moved = await waitFor(
      () => lockRow(semaphorePath),
      (row) => row?.holderToken?.startsWith(`${h.sessionId}/`) === true,
      "h to hold",
    );
    expect(waitersOf(moved)).toEqual([]);
  });

  it("a LeaderSelector: the leader by its id, the other candidate waiting; relinquishing hands leadership over", async () => {
    const [p, q] = [await contender(), await contender()];
    await p.selector("l", selectorPath, "billing-a");
    await p.next("l", "leader");
    await q.selector("l", selectorPath, "billing-b");
    const held = await waitFor(
      () => lockRow(selectorPath),
      (row) => row?.holder === "billing-a" && waitersOf(row)?.length === 1,
      "billing-a to lead with billing-b waiting",
    );
    expect(waitersOf(held)).toEqual(["billing-b"]);
    expect(held!.details).toMatchObject({ source: { recipe: "curator-leader-selector", holderSessionId: p.sessionId } });
    await p.relinquish("l");
    await q.next("l", "leader");
    const changes = await waitFor(
      () => changesOf(selectorPath),
      (rows) => rows.length > 0,
      "the handover to be recorded",
    );
    expect(changes.map((r) => [r.kind, r.ending, r.fromHolder, r.toHolder])).toEqual([["HOLDER_CHANGED", "TAKEN_OVER", "billing-a", "billing-b"]]);
  });
});
