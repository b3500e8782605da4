import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { checkHealth } from "@/lib/health/check-health";
import { createTestDb, registerCluster, waitFor } from "@/tests/support/poller-harness";
import { deleteKeysWithPrefix, MACHINE_REDIS_URL } from "@/tests/support/redis-servers";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";
import { findFreePort } from "@/tools/free-port";

// A fleet of worker processes (each its own process group and metrics port, as `npm run worker`
// on W machines) sharing 12 clusters: Redis lock clusters on the machine's Redis, each scoped to
// its own key prefix. Three replicas take 4 each; two more join and the five hold 3 or 2 each;
// a SIGKILLed replica's clusters are polled again by the others and a holder change made during
// the hand-over is recorded exactly once; a replica frozen (SIGSTOP) past the bound loses its
// clusters and, woken, writes nothing under its old epochs; a SIGTERMed one hands its clusters
// over and exits 0.

const RETRY_MS = 500;
const CLUSTERS = 12;
const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const prefix = `fleet-${run}`;
let db: Db;
let redis: Redis;
const clusterIds = new Map<number, string>();
let clusters: ClusterConfig[];

type Replica = { id: string; process: ChildProcess; metricsPort: number; output: string[] };
const replicas: Replica[] = [];

function clusterEntry(i: number) {
  return {
    kind: "redis",
    name: `${prefix}-${i}`,
    url: MACHINE_REDIS_URL,
    pollIntervalMs: 500,
    patterns: [{ match: `${prefix}:${i}:*`, holderPattern: "^(?<holder>[^:]+):" }],
  };
}

async function startReplica(id: string): Promise<Replica> {
  const metricsPort = await findFreePort();
  const child = spawn(process.execPath, await workerNodeArgs(), {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BATON_CLUSTERS: JSON.stringify(Array.from({ length: CLUSTERS }, (_, i) => clusterEntry(i))),
      BATON_WORKER_ID: id,
      BATON_FLEET_RETRY_MS: String(RETRY_MS),
      BATON_WORKER_METRICS_PORT: String(metricsPort),
      BATON_ALERT_RULES: JSON.stringify({ violations: { enabled: false } }),
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const replica: Replica = { id, process: child, metricsPort, output: [] };
  for (const stream of [child.stdout!, child.stderr!])
    stream.on("data", (chunk: Buffer) => replica.output.push(...chunk.toString().split("\n").filter(Boolean)));
  replicas.push(replica);
  return replica;
}

/** Which replica holds each of this test's clusters, by the lease table. */
async function leases(): Promise<Map<string, string>> {
  const rows = await db.pollerLease.findMany({
    where: { clusterId: { in: [...clusterIds.keys()] } },
    select: { clusterId: true, pollerId: true, epoch: true },
  });
  return new Map(rows.map((row) => [clusterIds.get(row.clusterId)!, row.pollerId]));
}

/** How many clusters each live replica holds now: the lock each lease's connection keeps, not the table alone. */
async function spread(): Promise<Record<string, number>> {
  const held = await db.$queryRawUnsafe<{ poller_id: string; n: number }[]>(
    `select l.poller_id, count(*)::int as n from poller_lease l
     where l.cluster_id = any($1::int[])
       and exists (select 1 from pg_locks k where k.locktype = 'advisory' and k.granted and k.classid = ${0x4241544e}::bigint::oid and k.objid = l.cluster_id::bigint::oid)
     group by l.poller_id`,
    [...clusterIds.keys()],
  );
  return Object.fromEntries(held.map((row) => [row.poller_id, row.n]));
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

async function metricsOf(replica: Replica): Promise<number | null> {
  const response = await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  const line = (await response.text()).split("\n").find((l) => l.startsWith("baton_worker_cluster_leases "));
  return line === undefined ? null : Number(line.split(" ")[1]);
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  redis = new Redis(MACHINE_REDIS_URL);
  clusters = loadConfig({ BATON_CLUSTERS: JSON.stringify(Array.from({ length: CLUSTERS }, (_, i) => clusterEntry(i))) }).clusters;
  for (const cluster of clusters) clusterIds.set(await registerCluster(db, cluster), cluster.name);
  await redis.set(`${prefix}:3:job`, "pod-a:1", "PX", 600_000);
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) if (replica.process.exitCode === null && replica.process.signalCode === null) process.kill(-replica.process.pid!, "SIGKILL");
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await db.cluster.deleteMany({ where: { name: { startsWith: prefix } } });
  await db.workerReplica.deleteMany({ where: { replicaId: { startsWith: prefix } } });
  await db.$disconnect();
});

describe("a fleet of worker replicas", () => {
  it("spreads 12 clusters over 3 replicas (4 each), then over 5 (2 or 3 each); each replica's /metrics says how many it holds", async () => {
    for (const n of [1, 2, 3]) await startReplica(`${prefix}-w${n}`);
    const three = await waitFor(spread, (s) => total(s) === CLUSTERS && Object.values(s).every((n) => n === 4), "three replicas to hold 4 each", 300);
    expect(Object.keys(three).sort()).toEqual([`${prefix}-w1`, `${prefix}-w2`, `${prefix}-w3`]);
    for (const n of [4, 5]) await startReplica(`${prefix}-w${n}`);
    const five = await waitFor(
      spread,
      (s) => total(s) === CLUSTERS && Object.keys(s).length === 5 && Object.values(s).every((n) => n === 2 || n === 3),
      "five replicas to hold 2 or 3 each",
      300,
    );
    for (const replica of replicas) {
      const held = await waitFor(
        () => metricsOf(replica),
        (value) => value === (five[replica.id] ?? 0),
        `${replica.id}'s /metrics to say ${five[replica.id]}`,
      );
      expect(held).toBe(five[replica.id]);
    }
    // /api/health (and the Clusters page) tell which replica polls each cluster, since when, and each replica's clusters.
    const health = await checkHealth(
      loadConfig({ DATABASE_URL: databaseUrl, BATON_CLUSTERS: JSON.stringify(Array.from({ length: CLUSTERS }, (_, i) => clusterEntry(i))) }),
      db,
    );
    expect(Object.fromEntries(health.replicas.filter((r) => r.isAlive).map((r) => [r.replicaId, r.clusters.length]))).toEqual(five);
    const holders = await leases();
    for (const cluster of health.clusters) {
      expect(cluster.poller?.pollerId).toBe(holders.get(cluster.name));
      expect(cluster.poller?.acquiredAt).toEqual(expect.any(String));
    }
    // The hand-overs were logged once each, with their reason.
    const givenBack = replicas.flatMap((r) => r.output.filter((line) => line.includes("lease given back:")));
    expect(givenBack.length).toBeGreaterThan(0);
    expect(givenBack.every((line) => /\(share: 12 clusters over [2-5] replicas, \d+ for this one\)/.test(line))).toBe(true);
  });

  it("a SIGKILLed replica's clusters are polled again by the others; a holder change made meanwhile is recorded exactly once", async () => {
    const holders = await leases();
    const key = `${prefix}:3:job`;
    const victim = replicas.find((r) => r.id === holders.get(`${prefix}-3`))!;
    const cluster3 = [...clusterIds].find(([, name]) => name === `${prefix}-3`)![0];
    await waitFor(
      () => db.heldResource.findFirst({ where: { clusterId: cluster3, resourceKey: key }, select: { holder: true } }),
      (row) => row?.holder === "pod-a",
      "pod-a's hold to be recorded",
    );
    // What each replica logs from the kill on: cluster 3 may have changed hands before (the spread).
    const logged = new Map(replicas.map((r) => [r, r.output.length]));
    process.kill(-victim.process.pid!, "SIGKILL");
    // The change happens while nobody polls cluster 3 (or just as another takes it).
    await redis.set(key, "pod-b:2", "PX", 600_000);
    const after = await waitFor(
      spread,
      (s) => total(s) === CLUSTERS && !(victim.id in s) && Object.values(s).every((n) => n === 3),
      "the four others to hold every cluster",
      300,
    );
    expect(Object.keys(after)).toHaveLength(4);
    const changes = await waitFor(
      () => db.holderChange.findMany({ where: { clusterId: cluster3, resource: { resourceKey: key }, toHolder: "pod-b" }, select: { kind: true } }),
      (rows) => rows.length > 0,
      "pod-b's hold to be recorded",
    );
    expect(changes).toHaveLength(1);
    const taken = await waitFor(
      async () => replicas.flatMap((r) => (r === victim ? [] : r.output.slice(logged.get(r)))).find((l) => l.includes(`lease taken: ${prefix}-3 `)),
      (line) => line !== undefined,
      "the replica that took cluster 3 to log it",
    );
    expect(taken).toContain(`death of replica ${victim.id}`);
  });

  // Under libfaketime (npm test's clock pass) PostgreSQL's own idle_session_timeout never fires,
  // so a frozen replica's session, and its leases, would stay: the subject here is PostgreSQL's
  // timer, not a date of Baton's.
  it.skipIf(process.env.FAKETIME !== undefined)(
    "a replica frozen past the bound loses its clusters; woken, it writes nothing under the epochs it lost",
    async () => {
      const before = await db.pollerLease.findMany({
        where: { clusterId: { in: [...clusterIds.keys()] } },
        select: { clusterId: true, pollerId: true, epoch: true },
      });
      const frozen = replicas.find((r) => r.process.exitCode === null && r.process.signalCode === null && before.some((l) => l.pollerId === r.id))!;
      const lost = before.filter((l) => l.pollerId === frozen.id);
      process.kill(-frozen.process.pid!, "SIGSTOP");
      let deposedAt: Date | null;
      try {
        deposedAt = await waitFor(
          async () => {
            const now = await db.pollerLease.findMany({ where: { clusterId: { in: lost.map((l) => l.clusterId) } }, select: { pollerId: true } });
            return now.every((l) => l.pollerId !== frozen.id) ? new Date() : null;
          },
          (at) => at !== null,
          `${frozen.id}'s clusters to be taken by the others`,
          300,
        );
      } finally {
        // Woken whatever happened: a replica left stopped would hang every later test.
        process.kill(-frozen.process.pid!, "SIGCONT");
      }
      // Woken, it finds its lock connection gone (the server ended it) and says so for each lease.
      await waitFor(
        async () => frozen.output.filter((line) => /lease lost: /.test(line)).length,
        (n) => n >= lost.length,
        `${frozen.id} to notice it lost its leases`,
        300,
      );
      const lateRuns = await db.pollRun.count({
        where: { OR: lost.map((l) => ({ clusterId: l.clusterId, pollerEpoch: l.epoch })), finishedAt: { gt: deposedAt! } },
      });
      expect(lateRuns).toBe(0);
      const lateChanges = await db.holderChange.count({
        where: { OR: lost.map((l) => ({ clusterId: l.clusterId, pollerEpoch: l.epoch })), newSeenAt: { gt: deposedAt! } },
      });
      expect(lateChanges).toBe(0);
    },
  );

  it("a SIGTERMed replica hands its clusters over and exits 0", async () => {
    const holders = await spread();
    const leaving = replicas.find((r) => r.process.exitCode === null && r.process.signalCode === null && (holders[r.id] ?? 0) > 0)!;
    const exited = new Promise<number | null>((resolve) => leaving.process.once("exit", (code) => resolve(code)));
    process.kill(-leaving.process.pid!, "SIGTERM");
    expect(await exited).toBe(0);
    expect(leaving.output.filter((line) => line.includes("(shutdown)")).length).toBe(holders[leaving.id]);
    const after = await waitFor(spread, (s) => total(s) === CLUSTERS && !(leaving.id in s), "the others to take the leaving replica's clusters", 300);
    expect(after[leaving.id]).toBeUndefined();
    const row = await db.workerReplica.findUnique({ where: { replicaId: leaving.id }, select: { stoppedAt: true, leaseCount: true } });
    expect(row).toMatchObject({ leaseCount: 0, stoppedAt: expect.any(Date) });
  });
});
