import { randomUUID } from "node:crypto";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { type ClusterConfig, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { dynamodbKind } from "@/lib/sources/dynamodb/dynamodb-kind";
import { type DynamodbContender, startDynamodbContender } from "@/tests/support/dynamodb-contender";
import { startDynamodbServer, TEST_AWS_CREDENTIALS, TEST_AWS_REGION, type TestDynamodbServer } from "@/tests/support/dynamodb-server";
import { readHeldRows } from "@/tests/support/held-rows";
import { createTestDb, registerCluster, startPoller, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The worker's poller against a real DynamoDB Local 2.5.4 and the real PostgreSQL, with Amazon's
// dynamodb-lock-client as the contenders (one JVM per owner, heartbeating): a clean release
// (item deleted, or kept with isReleased), a crashed holder whose version stops changing, a
// holder stalled past its lease and taken over, and the server down and back.

const databaseUrl = getTestDatabaseUrl();
let db: Db;
let server: TestDynamodbServer;
const pollers: RunningPoller[] = [];
const logs: string[] = [];
let contenders: DynamodbContender[] = [];
const run = randomUUID().slice(0, 8);
const clusterName = `dynamodb-${Date.now().toString(36)}`;
const tableName = `locks-${run}`;
const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
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

async function holdRow(key: string) {
  const row = await db.heldResource.findUnique({
    where: { clusterId_resourceKey: { clusterId, resourceKey: key } },
    select: { kind: true, holder: true, holderToken: true, expiresAt: true, staleSince: true, lastError: true, consumers: true, details: true },
  });
  // A row is written only when the lock changed: its last observation is read as the board reads it.
  const observed = (await readHeldRows(db, clusterId)).get(key)?.lastObservedAt ?? null;
  return (
    row && {
      ...row,
      lastObservedAt: observed === null ? null : new Date(observed),
      waiters: row.consumers as unknown[],
      source: (row.details as { source?: Record<string, unknown> }).source ?? {},
    }
  );
}

async function contender(owner: string, leaseMs: number, heartbeatMs: number): Promise<DynamodbContender> {
  const started = await startDynamodbContender({ endpoint: server.endpoint, tableName, owner, leaseMs, heartbeatMs });
  contenders.push(started);
  return started;
}

beforeAll(async () => {
  // The SDK's default chain finds these, as it would in a deployment's environment.
  process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
  db = createTestDb(databaseUrl);
  server = await startDynamodbServer();
  await server.createLockTable(tableName);
  cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "dynamodb",
        name: clusterName,
        region: TEST_AWS_REGION,
        endpoint: server.endpoint,
        tableName,
        readIntervalMs: 300,
        discoveryIntervalMs: 1_000,
        requestTimeoutMs: 1_000,
        mustBeHeld: true,
      },
    ]),
  }).clusters[0]!;
  clusterId = await registerCluster(db, cluster);
  pollers.push(startPoller({ databaseUrl, cluster, clusterId, pollerId: "dynamodb-test-1", logs }));
}, 120_000);

afterEach(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  contenders = [];
});

afterAll(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  for (const poller of pollers) await poller.stop();
  await server?.dispose();
  await db.cluster.deleteMany({ where: { name: clusterName } });
  await db.$disconnect();
  if (savedEnv.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
  else process.env.AWS_ACCESS_KEY_ID = savedEnv.id;
  if (savedEnv.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  else process.env.AWS_SECRET_ACCESS_KEY = savedEnv.secret;
});

describe("the poller on a dynamodb-lock-client table", () => {
  it("registers the cluster as a DynamoDB cluster, and health reads the table", async () => {
    const row = await db.cluster.findUniqueOrThrow({ where: { name: clusterName }, select: { kind: true, scope: true } });
    expect(row).toMatchObject({
      kind: "DYNAMODB",
      scope: { patterns: [{ match: tableName, layout: "dynamodb-lock-client", mustBeHeld: true }], tableName, partitionKeyName: "key", sortKeyName: null },
    });
    const config = cluster as Parameters<typeof dynamodbKind.checkReachable>[0];
    expect(await dynamodbKind.checkReachable(config, 1_000)).toEqual({ status: "ok", reason: null });
    expect(await dynamodbKind.checkReachable({ ...config, tableName: `missing-${run}` }, 1_000)).toEqual({
      status: "down",
      reason: `DynamoDB missing-${run} at ${server.endpoint}: the table does not exist`,
    });
  });

  it("a heartbeating holder stays one hold with its record version in the details; a clean release (item deleted) is RELEASED", async () => {
    const key = `release-${run}`;
    const a = await contender("pod-a", 3_000, 500);
    await a.acquire("h", key, { data: "hello" });
    const acquired = await a.next("h", "acquired");
    const held = await waitFor(
      () => holdRow(key),
      (row) => row?.holder === "pod-a",
      "pod-a to hold it",
    );
    expect(held).toMatchObject({ kind: "DYNAMODB_LOCK", holderToken: "pod-a", waiters: [], staleSince: null });
    expect(held!.source).toMatchObject({ leaseDurationMs: 3_000, isReleased: false, data: Buffer.from("hello").toString("base64") });
    expect(Object.keys(held!.source).sort()).toEqual(["data", "isReleased", "leaseDurationMs", "recordVersionNumber", "versionUnchangedForMs"]);
    expect(held!.source.recordVersionNumber).toEqual(expect.any(String));
    // Heartbeats write new versions: Baton follows them, and they are no change of holder.
    const firstVersion = acquired.text.split(" ")[2];
    await waitFor(
      () => holdRow(key),
      (row) => row !== null && row.source.recordVersionNumber !== firstVersion,
      "a heartbeat's new version to be read",
    );
    expect(await changesOf(key)).toEqual([]);

    await a.release("h");
    const rows = await waitFor(
      () => changesOf(key),
      (r) => r.length > 0,
      "the release to be recorded",
    );
    expect(rows).toEqual([{ kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: "pod-a", toHolder: null, isDuringGap: false }]);
  });

  it("a release that keeps the item (isReleased = true) is RELEASED, and the next owner's acquire a new hold", async () => {
    const key = `keep-${run}`;
    const a = await contender("pod-k", 3_000, 500);
    await a.acquire("h", key);
    await a.next("h", "acquired");
    await waitFor(
      () => holdRow(key),
      (row) => row?.holder === "pod-k",
      "pod-k to hold it",
    );
    await a.releaseKeepingItem("h");
    const released = await waitFor(
      () => holdRow(key),
      (row) => row?.holder === null,
      "the release to be read",
    );
    expect(released!.source).toMatchObject({ isReleased: true });
    const b = await contender("pod-l", 3_000, 500);
    await b.acquire("h", key);
    await b.next("h", "acquired");
    const rows = await waitFor(
      () => changesOf(key),
      (r) => r.length > 1,
      "the release and the next acquire to be recorded",
    );
    expect(rows).toEqual([
      { kind: "HOLDER_LOST", ending: "RELEASED", fromHolder: "pod-k", toHolder: null, isDuringGap: false },
      { kind: "HOLDER_APPEARED", ending: null, fromHolder: null, toHolder: "pod-l", isDuringGap: false },
    ]);
  });

  it("a crashed holder (kill -9): its version stops changing, and a lease later on Baton's clock it is EXPIRED, not released", async () => {
    const key = `crash-${run}`;
    const a = await contender("pod-c", 2_000, 400);
    await a.acquire("h", key);
    await a.next("h", "acquired");
    await waitFor(
      () => holdRow(key),
      (row) => row?.holder === "pod-c",
      "pod-c to hold it",
    );
    await a.kill();
    const killedAt = Date.now();
    const rows = await waitFor(
      () => changesOf(key),
      (r) => r.length > 0,
      "the expiry to be recorded",
      100,
      100,
    );
    // No sooner than a lease after the last heartbeat, which was at most one heartbeat before the kill.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(2_000 - 400);
    expect(rows).toEqual([{ kind: "HOLDER_LOST", ending: "EXPIRED", fromHolder: "pod-c", toHolder: null, isDuringGap: false }]);
    // The item is still there, as the crashed client left it: free, with its version's age.
    const row = await holdRow(key);
    expect(row).toMatchObject({ holder: null, staleSince: null });
    expect(row!.source.versionUnchangedForMs as number).toBeGreaterThanOrEqual(2_000);
  });

  it("a holder stalled past its lease (SIGSTOP): EXPIRED while held, the waiter takes it, and the first waking up changes nothing", async () => {
    const key = `stall-${run}`;
    const a = await contender("pod-s", 2_000, 400);
    await a.acquire("h", key);
    await a.next("h", "acquired");
    await waitFor(
      () => holdRow(key),
      (row) => row?.holder === "pod-s",
      "pod-s to hold it",
    );
    const b = await contender("pod-t", 2_000, 400);
    await b.acquire("h", key);
    a.stall(); // a GC pause: no heartbeat reaches the table
    await b.next("h", "acquired");
    const rows = await waitFor(
      () => changesOf(key),
      (r) => r.some((c) => c.toHolder === "pod-t"),
      "the take-over to be recorded",
      100,
      100,
    );
    // Baton's clock and the waiter's run apart: Baton may see the lease run out before pod-t takes it, or the take-over at once.
    expect(rows[0]).toMatchObject({ ending: "EXPIRED", fromHolder: "pod-s", isDuringGap: false });
    expect(rows.at(-1)).toMatchObject({ toHolder: "pod-t" });
    a.wake();
    const count = rows.length;
    // pod-s's next heartbeat fails its condition (the version moved on): pod-t keeps the lock.
    await waitFor(
      () => holdRow(key),
      (row) =>
        row !== null && row.holder === "pod-t" && (row.source.versionUnchangedForMs as number) < 2_000 && row.lastObservedAt!.getTime() > Date.now() - 1_000,
      "pod-t to keep it after pod-s woke up",
    );
    expect(await changesOf(key)).toHaveLength(count);
  });

  it("DynamoDB down makes its locks stale, never free; back, nothing was invented and nothing written twice", async () => {
    const key = `outage-${run}`;
    // A lease longer than the outage: the client keeps its lock through it, as it would in AWS.
    const a = await contender("pod-x", 15_000, 500);
    await a.acquire("h", key);
    await a.next("h", "acquired");
    await waitFor(
      () => holdRow(key),
      (row) => row?.holder === "pod-x" && row.staleSince === null,
      "pod-x to hold it",
    );
    await server.stop();
    try {
      const stale = await waitFor(
        () => holdRow(key),
        (row) => row?.staleSince !== null,
        "the lock to go stale",
        100,
        100,
      );
      expect(stale).toMatchObject({ holder: "pod-x" });
      // Refused, or reset when the kill caught a read in flight.
      expect(stale!.lastError).toMatch(/^DynamoDB locks-\w+ at http:\/\/127\.0\.0\.1:\d+: connection (refused|reset)/);
    } finally {
      await server.restart();
    }
    await waitFor(
      () => holdRow(key),
      (row) => row?.staleSince === null,
      "the lock to be current again",
      150,
      100,
    );
    // A few reads more: still the same hold, one row for the lock, no change.
    const after = await waitFor(
      () => holdRow(key),
      (row) => row !== null && row.lastObservedAt!.getTime() > Date.now() - 500,
      "a fresh read after the outage",
    );
    expect(after).toMatchObject({ holder: "pod-x", staleSince: null });
    expect(await db.heldResource.count({ where: { clusterId, resourceKey: key } })).toBe(1);
    expect(await changesOf(key)).toEqual([]);
  });
});
