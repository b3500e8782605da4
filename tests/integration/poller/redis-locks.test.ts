import { type ChildProcess, spawn } from "node:child_process";

import { Redis } from "ioredis";
import Redlock from "redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { describeExplanation } from "@/lib/violations/describe-explanation";
import { getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { openIngestPool, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { startRedisServer, stopRedisServers, type TestRedisServer, uniquePrefix } from "@/tests/support/redis-servers";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller against real Redis servers and the real PostgreSQL: locks taken by the
// libraries users run (node-redlock), released, expired while held (a holder stopped with SIGSTOP
// past its TTL), taken over, and a Redis that stops answering mid-run.

const databaseUrl = getTestDatabaseUrl();
let db: Db;
const pool = openIngestPool();
let server: TestRedisServer;
let admin: Redis;
const pollers: RunningPoller[] = [];
const children: ChildProcess[] = [];
const prefix = uniquePrefix("poll");
const clusterName = `redis-${Date.now().toString(36)}`;
let cluster: ClusterConfig;
let clusterId: number;

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  redis.on("error", () => undefined);
  return redis;
}

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
    select: { kind: true, holder: true, holderToken: true, expiresAt: true, staleSince: true, lastObservedAt: true, lastError: true },
  });
}

/**
 * A worker in its own process that takes `key` with node-redlock and keeps extending it while it
 * runs, printing "acquired" once it holds it. SIGSTOP stops it between extensions: a GC pause.
 */
function startRedlockWorker(url: string, key: string, name: string, ttlMs: number): Promise<ChildProcess> {
  const script = `
    import { Redis } from "ioredis";
    import Redlock from "redlock";
    const redis = new Redis(${JSON.stringify(url)});
    const redlock = new Redlock([redis], { retryCount: 50, retryDelay: 100 });
    redlock.on("error", () => {});
    await redlock.using([${JSON.stringify(key)}], ${ttlMs}, { automaticExtensionThreshold: ${Math.floor(ttlMs / 2)} }, async (signal) => {
      console.log("acquired");
      while (!signal.aborted) await new Promise((r) => setTimeout(r, 50));
      console.log("lost: " + signal.error?.message);
    }).catch((e) => console.log("failed: " + e.message));
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: process.cwd(),
    env: { ...process.env, WORKER: name },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("acquired")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`redlock worker ${name} exited (${code}) before acquiring`)));
  });
}

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  // Keyspace notifications on this test-owned server only: `del` and `expired` tell how holds end.
  server = await startRedisServer({ notifyKeyspaceEvents: "K$gx" });
  admin = client(server.url);
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "redis",
        name: clusterName,
        url: server.url,
        pollIntervalMs: 500,
        discoveryIntervalMs: 1_000,
        requestTimeoutMs: 500,
        patterns: [{ match: `${prefix}lock:*`, holderPattern: "^(?<holder>[a-z]+-[a-z0-9]+):" }],
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "redis-test-1" }));
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const poller of pollers) await poller.stop();
  admin.disconnect();
  await stopRedisServers([server]);
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

describe("the poller on Redis locks", () => {
  it("registers the cluster as a Redis cluster with its patterns, the password-free address shown", async () => {
    const row = await db.cluster.findUniqueOrThrow({ where: { name: clusterName }, select: { kind: true, adminUrl: true, scope: true } });
    expect(row).toMatchObject({
      kind: "REDIS",
      adminUrl: server.url,
      scope: { patterns: [{ match: `${prefix}lock:*`, layout: "token", mustBeHeld: false }], isRedlock: false },
    });
  });

  it("sees a lock acquired with node-redlock, then released: acquired, then released (not expired)", async () => {
    const key = `${prefix}lock:release`;
    const redlock = new Redlock([admin], { retryCount: 0 });
    // node-redlock writes a random token: the holder is that token, shortened.
    const lock = await redlock.acquire([key], 30_000);
    const held = await waitFor(
      () => lockRow(key),
      (row) => row?.holder !== null && row?.holder !== undefined,
      "the lock to be seen held",
    );
    expect(held).toMatchObject({ kind: "REDIS_LOCK", holderToken: lock.value });
    expect(Date.parse(held!.expiresAt!.toISOString()) - Date.now()).toBeGreaterThan(20_000);
    await lock.release();
    const changes = await waitFor(
      () => changesOf(key),
      (rows) => rows.some((r) => r.kind === "HOLDER_LOST"),
      "the release to be recorded",
    );
    expect(changes.filter((c) => c.kind === "HOLDER_LOST")).toEqual([
      { kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: held!.holder, toHolder: null, isDuringGap: false },
    ]);
  });

  it("a holder stopped past its TTL: the lock expires while held, another worker takes it, and the first wakes up to a lost lock", async () => {
    const key = `${prefix}lock:gc-pause`;
    const first = await startRedlockWorker(server.url, key, "pod-a", 1_500);
    await waitFor(
      () => lockRow(key),
      (row) => row?.holderToken !== null && row?.holderToken !== undefined,
      "pod-a's hold to be seen",
    );
    const firstToken = (await lockRow(key))!.holderToken;
    first.kill("SIGSTOP"); // a GC pause: no extension reaches Redis
    const second = await startRedlockWorker(server.url, key, "pod-b", 1_500);
    const changes = await waitFor(
      () => changesOf(key),
      (rows) => rows.some((r) => r.kind === "HOLDER_APPEARED" || r.kind === "HOLDER_CHANGED"),
      "the takeover to be recorded",
    );
    const ending = changes.find((c) => c.kind === "HOLDER_LOST" || c.kind === "HOLDER_CHANGED")!;
    expect(ending).toMatchObject({ ending: "EXPIRED" });
    const secondToken = (await waitFor(
      () => lockRow(key),
      (row) => row?.holderToken !== firstToken && row?.holderToken !== null,
      "pod-b's hold to be seen",
    ))!.holderToken;
    expect(secondToken).not.toBe(firstToken);
    // pod-a wakes up: its next extension finds the lock gone. Baton records no change for that.
    const countBefore = (await changesOf(key)).length;
    first.kill("SIGCONT");
    await waitFor(
      async () => (await lockRow(key))?.holderToken,
      (token) => token === secondToken,
      "pod-b to keep the lock after pod-a woke up",
    );
    expect((await changesOf(key)).length).toBe(countBefore);

    // The counter caught it: pod-b entered the job's key while pod-a (woken up) was still inside.
    // The violation names the lock; its drill-down tells the expiry from the stored changes.
    const jobKey = uniquePrefix("job-run");
    const nowMs = Date.now();
    const lock = `${clusterName}/${key}`;
    await writeTestEvents(pool, [
      { service: "scheduler", key: jobKey, counter: 0, worker: "pod-a", observedAtMs: nowMs - 5_000, lock },
      {
        service: "scheduler",
        key: jobKey,
        counter: 1,
        worker: "pod-b",
        observedAtMs: nowMs,
        lock,
        othersInsideJson: JSON.stringify([{ worker: "pod-a", enteredAt: nowMs - 5_000 }]),
      },
    ]);
    const drilldown = await getKeyDrilldown(
      db,
      { key: jobKey, fromMs: nowMs - 60_000, toMs: nowMs + 1_000 },
      { windowMs: 120_000, graceMs: 0, traceUrlTemplate: null, retentionDays: 30 },
    );
    const [explanation] = drilldown.explanations;
    // The lock expired while held around it: the holder stalled past its TTL.
    expect(explanation).toMatchObject({ cause: "holder-stalled" });
    expect(drilldown.lockChanges.map((c) => c.ending)).toContain("EXPIRED");
    const event = drilldown.events.at(-1)!;
    const words = describeExplanation(explanation!, {
      event,
      deployments: new Map(),
      changes: new Map(),
      lockChanges: new Map(drilldown.lockChanges.map((c) => [c.id, c])),
      windowMs: 120_000,
      graceMs: 0,
      timeZone: "UTC",
    });
    expect(words.cause).toMatch(/^Holder stalled past its lock's TTL: /);
    expect(words.lockStory).toMatch(
      new RegExp(
        `The lock ${lock.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} expired while .+ held it .*acquired it .* later; pod-a was still inside key ${jobKey} when pod-b entered`,
      ),
    );
    await db.exclusivityEvent.deleteMany({ where: { key: jobKey } });
    // Only now: pod-b's own expiry, had it come before the drill-down was read, is part of the story's window.
    second.kill("SIGKILL");
  });

  it("a Redis that stops answering makes its locks stale, never free; when it answers again nothing was invented", async () => {
    const key = `${prefix}lock:outage`;
    await admin.set(key, "pod-x:token-1", "PX", 120_000);
    await waitFor(
      () => lockRow(key),
      (row) => row?.holder === "pod-x",
      "the lock to be seen held by pod-x",
    );
    const before = (await changesOf(key)).length;
    server.pause();
    try {
      const stale = await waitFor(
        () => lockRow(key),
        (row) => row?.staleSince !== null && row?.staleSince !== undefined,
        "the lock to go stale",
        100,
        300,
      );
      expect(stale).toMatchObject({ holder: "pod-x", holderToken: "pod-x:token-1" });
      expect(stale!.lastError).toMatch(/Redis/);
    } finally {
      server.resume();
    }
    const back = await waitFor(
      () => lockRow(key),
      (row) => row?.staleSince === null,
      "the lock to be current again",
    );
    expect(back).toMatchObject({ holder: "pod-x", holderToken: "pod-x:token-1" });
    expect((await changesOf(key)).length).toBe(before);
  });

  it("a second poller stands by, and a restarted one resumes from the stored holds without writing a change twice", async () => {
    const key = `${prefix}lock:resume`;
    await admin.set(key, "pod-r:t1", "PX", 120_000);
    await waitFor(
      () => lockRow(key),
      (row) => row?.holder === "pod-r",
      "the lock to be seen",
    );
    await pollers.shift()!.stop();
    pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "redis-test-2" }));
    await admin.set(key, "pod-s:t2", "PX", 120_000);
    const changes = await waitFor(
      () => changesOf(key),
      (rows) => rows.some((r) => r.toHolder === "pod-s"),
      "the takeover after the restart",
    );
    expect(changes.map((c) => [c.kind, c.ending, c.fromHolder, c.toHolder])).toEqual([["HOLDER_CHANGED", "TAKEN_OVER", "pod-r", "pod-s"]]);
  });
});
