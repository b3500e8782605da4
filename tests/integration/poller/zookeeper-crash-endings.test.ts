import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { type CuratorContender, startCuratorContender } from "@/tests/support/curator-contender";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { startTcpProxy, type TcpProxy } from "@/tests/support/tcp-proxy";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// A Curator LeaderLatch leader SIGKILLed again and again (the demo's index-builder, whose crash
// a fresh clone's CI once recorded as "taken over before its TTL ended"): each time ZooKeeper
// expires the session, and the next node leads. Baton reads the election every 100 ms through a
// proxy that lets each new connection reach the server 600 ms late: the `dump` four-letter word
// (a new connection each time) answers late, as a loaded server's does, while the session's reads
// answer at once. So, crash after crash, a read that still finds the dead leader's node meets a
// `dump` taken after its session expired: the read before the change has no deadline, the timing
// that failed. Every crash must read as an expiry, never as a take-over.

const SESSION_TIMEOUT_MS = 2_000;
const CRASHES = 4;
const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestZookeeperServer;
let proxy: TcpProxy;
const contenders: CuratorContender[] = [];
let poller: RunningPoller;
const run = randomUUID().slice(0, 8);
const clusterName = `zk-crash-${run}`;
const electionPath = `/baton-test-${run}/election/indexer`;
let clusterId: number;

type Ending = { kind: string; ending: string | null; fromHolder: string | null; toHolder: string | null };

async function endingsOf(key: string): Promise<Ending[]> {
  return db.holderChange.findMany({
    where: { clusterId, resource: { resourceKey: key }, kind: { not: "HOLDER_APPEARED" } },
    orderBy: [{ newSeenAt: "asc" }, { id: "asc" }],
    select: { kind: true, ending: true, fromHolder: true, toHolder: true },
  });
}

async function joinElection(id: string): Promise<CuratorContender> {
  const started = await startCuratorContender(server.connectString, SESSION_TIMEOUT_MS);
  contenders.push(started);
  await started.latch("e", electionPath, id);
  return started;
}

async function holderOf(key: string): Promise<{ holder: string | null; waiters: string[] } | null> {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { holder: true, consumers: true },
  });
  return row === null ? null : { holder: row.holder, waiters: (row.consumers as { name: string }[]).map((w) => w.name) };
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  server = await startZookeeperServer({ tickTimeMs: 500 });
  proxy = await startTcpProxy(Number(server.connectString.split(":").at(-1)), { connectDelayMs: 600 });
  const cluster: ClusterConfig = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "zookeeper",
        name: clusterName,
        connectString: `127.0.0.1:${proxy.port}`,
        sessionTimeoutMs: 6_000,
        pollIntervalMs: 100,
        discoveryIntervalMs: 5_000,
        requestTimeoutMs: 2_000,
        paths: [{ path: electionPath, recipe: "curator-leader-latch", mustBeHeld: true }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "zk-crash-test-1" });
}, 180_000);

afterAll(async () => {
  for (const c of contenders) await c.kill().catch(() => undefined);
  await poller?.stop();
  await proxy?.close();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
});

describe("a ZooKeeper election whose leader crashes again and again", () => {
  it(`each of ${CRASHES} SIGKILLed leaders reads 'expired while held', handed to the next in line, never 'taken over'`, async () => {
    let leader = await joinElection("indexer-0");
    await leader.next("e", "leader");
    let next = await joinElection("indexer-1");
    await waitFor(
      () => holderOf(electionPath),
      (seen) => seen?.holder === "indexer-0" && seen.waiters.join() === "indexer-1",
      "indexer-0 to lead, indexer-1 to wait",
    );
    for (let crash = 1; crash <= CRASHES; crash += 1) {
      const leaderId = `indexer-${crash - 1}`;
      const nextId = `indexer-${crash}`;
      await leader.kill();
      await next.next("e", "leader");
      const endings = await waitFor(
        () => endingsOf(electionPath),
        (rows) => rows.length >= crash,
        `crash ${crash}: ${leaderId}'s end to be recorded`,
      );
      expect(endings[crash - 1]).toEqual({ kind: "HOLDER_CHANGED", ending: "EXPIRED", fromHolder: leaderId, toHolder: nextId });
      if (crash === CRASHES) break;
      leader = next;
      next = await joinElection(`indexer-${crash + 1}`);
      await waitFor(
        () => holderOf(electionPath),
        (seen) => seen?.holder === nextId && seen.waiters.join() === `indexer-${crash + 1}`,
        `${nextId} to lead with indexer-${crash + 1} waiting`,
      );
    }
    expect((await endingsOf(electionPath)).map((row) => row.ending)).toEqual(Array(CRASHES).fill("EXPIRED"));
  });
});
