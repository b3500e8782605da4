import { randomUUID } from "node:crypto";

import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDynamodbHoldSource } from "@/lib/sources/dynamodb";
import { parseDynamodbClusterConfig } from "@/lib/sources/dynamodb/dynamodb-config";
import type { HoldHint } from "@/lib/poller/contract/hold-observation";
import { type DynamodbContender, startDynamodbContender } from "@/tests/support/dynamodb-contender";
import { startDynamodbServer, TEST_AWS_CREDENTIALS, TEST_AWS_REGION, type TestDynamodbServer } from "@/tests/support/dynamodb-server";
import { waitFor } from "@/tests/support/poller-harness";

// The DynamoDB source on its own against a real DynamoDB Local 2.5.4: a table with a sort key
// locked by the real dynamodb-lock-client, Scans paginated within the budget with their
// consumed capacity, new locks handed over as hints, and missing credentials in one line.

let server: TestDynamodbServer;
const contenders: DynamodbContender[] = [];
const run = randomUUID().slice(0, 8);
const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, profile: process.env.AWS_PROFILE };

function config(input: Record<string, unknown>) {
  return parseDynamodbClusterConfig({ kind: "dynamodb", name: "src", region: TEST_AWS_REGION, endpoint: server.endpoint, requestTimeoutMs: 1_000, ...input });
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
  server = await startDynamodbServer();
}, 120_000);

afterAll(async () => {
  await Promise.all(contenders.map((c) => c.kill()));
  await server?.dispose();
  restoreEnv("AWS_ACCESS_KEY_ID", savedEnv.id);
  restoreEnv("AWS_SECRET_ACCESS_KEY", savedEnv.secret);
  restoreEnv("AWS_PROFILE", savedEnv.profile);
});

describe("the DynamoDB source", () => {
  it("reads a lock client's table with a sort key: '<partition>/<sort>' locks, the sort key in the details", async () => {
    const tableName = `sorted-${run}`;
    await server.createLockTable(tableName, { sortKeyName: "shard" });
    const a = await startDynamodbContender({ endpoint: server.endpoint, tableName, owner: "pod-s", leaseMs: 5_000, heartbeatMs: 1_000, sortKeyName: "shard" });
    contenders.push(a);
    await a.acquire("h1", "orders", { sortKey: "1" });
    await a.acquire("h2", "orders", { sortKey: "2" });
    await a.next("h1", "acquired");
    await a.next("h2", "acquired");
    const source = createDynamodbHoldSource(config({ tableName, sortKeyName: "shard" }));
    try {
      const found = await source.discover();
      expect(found).toMatchObject({ errors: [], isComplete: true });
      expect(found.keys.map((k) => k.key).sort()).toEqual(["orders/1", "orders/2"]);
      const read = await source.observe(found.keys);
      expect(read.errors).toEqual([]);
      expect(read.observations.find((o) => o.resourceKey === "orders/2")).toMatchObject({
        holder: "pod-s",
        pattern: tableName,
        waiters: [],
        details: { sortKey: "2", leaseDurationMs: 5_000, isReleased: false },
      });
    } finally {
      await source.close();
    }
  });

  it("pages through the table within the budget, reports the capacity it consumed, and hands new locks over as hints", async () => {
    const tableName = `paged-${run}`;
    await server.createLockTable(tableName);
    for (let i = 0; i < 7; i++) {
      await server.client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { key: { S: `job-${i}` }, ownerName: { S: `pod-${i}` }, leaseDuration: { S: "20000" }, recordVersionNumber: { S: randomUUID() } },
        }),
      );
    }
    const source = createDynamodbHoldSource(config({ tableName, pageSize: 3, requestsPerSecond: 50 }));
    const hints: HoldHint[] = [];
    await source.watch(
      (h) => hints.push(...h),
      () => undefined,
    );
    try {
      const found = await source.discover();
      expect(found.keys).toHaveLength(7);
      // 7 items at 3 a page over 4 segments: a page or more per segment.
      expect(source.takeRequestCount()).toBeGreaterThanOrEqual(4);
      expect(source.lastReadCost()).toMatchObject({ items: 7, requests: expect.any(Number) });
      expect(source.lastReadCost()!.capacityUnits).toBeGreaterThan(0);
      // Only two are known to the cycles: a later read hands the other five over.
      const later = await waitFor(
        async () => {
          await source.observe(found.keys.slice(0, 2));
          return hints.length;
        },
        (count) => count > 0,
        "a read that is not the discovery's",
      );
      expect(later).toBe(5);
      expect(hints.map((h) => [h.kind, h.event])).toEqual(Array.from({ length: 5 }, () => ["change", null]));
      // A read of fewer locks than the table holds gets them by key: one BatchGetItem, not 3 Scan pages.
      source.takeRequestCount();
      const few = await source.observe(found.keys.slice(0, 2));
      expect(few.observations.map((o) => o.holder)).toEqual([expect.stringMatching(/^pod-/), expect.stringMatching(/^pod-/)]);
      expect(source.takeRequestCount()).toBe(1);
    } finally {
      await source.close();
    }
  });

  it("asks for a read of a held lock when its lease would run out, and that read finds it expired", async () => {
    const tableName = `lease-${run}`;
    await server.createLockTable(tableName);
    for (const key of ["short", "long"]) {
      await server.client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: {
            key: { S: key },
            ownerName: { S: `pod-${key}` },
            leaseDuration: { S: key === "short" ? "400" : "60000" },
            recordVersionNumber: { S: randomUUID() },
          },
        }),
      );
    }
    const source = createDynamodbHoldSource(config({ tableName }));
    const hints: HoldHint[] = [];
    await source.watch(
      (h) => hints.push(...h),
      () => undefined,
    );
    try {
      const found = await source.discover();
      const first = await source.observe(found.keys);
      expect(first.observations.find((o) => o.resourceKey === "short")).toMatchObject({ holder: "pod-short", ttlMs: expect.any(Number) });
      // The short lease's end, and nothing for the long one.
      const hinted = await waitFor(
        async () => hints.map((h) => h.key),
        (keys) => keys.length > 0,
        "the lease-end hint",
        50,
        50,
      );
      expect(hinted).toEqual(["short"]);
      const check = await source.observe([found.keys.find((k) => k.key === "short")!]);
      expect(check.observations[0]).toMatchObject({ resourceKey: "short", holder: null, previousEnding: "EXPIRED" });
    } finally {
      await source.close();
    }
  });

  it("gives up on a server that takes the connection but does not answer (requestTimeoutMs), and goes stale", async () => {
    const tableName = `paused-${run}`;
    await server.createLockTable(tableName);
    const source = createDynamodbHoldSource(config({ tableName, requestTimeoutMs: 500 }));
    server.pause();
    try {
      const read = await source.observe([{ key: "job", pattern: tableName }]);
      expect(read.observations).toEqual([]);
      expect(read.errors).toEqual([{ key: "job", message: expect.stringMatching(/^DynamoDB paused-\w+ at http:\/\/127\.0\.0\.1:\d+: no answer in time$/) }]);
    } finally {
      server.resume();
      await source.close();
    }
  });

  it("says in one line that there are no credentials, and goes stale rather than free", async () => {
    const tableName = `nocreds-${run}`;
    await server.createLockTable(tableName);
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_PROFILE = `baton-missing-${run}`;
    const source = createDynamodbHoldSource(config({ tableName }));
    try {
      const read = await source.observe([{ key: "job", pattern: tableName }]);
      expect(read.observations).toEqual([]);
      expect(read.errors).toHaveLength(1);
      expect(read.errors[0]!.message).toMatch(/^DynamoDB nocreds-\w+ at http:\/\/127\.0\.0\.1:\d+: /);
      expect(read.errors[0]!.message).not.toContain("\n");
    } finally {
      await source.close();
      process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
      restoreEnv("AWS_PROFILE", savedEnv.profile);
    }
  });
});
