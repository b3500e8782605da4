import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import type { RouteServer } from "@/tests/bench/route-server";
import { createTestToken, openDb } from "@/tests/integration/ingest/ingest-test-kit";
import { startBaton, uniqueService, workerPool } from "@/tests/integration/exclusivity-client-java/java-kit";
import { ensureJavaClientBuilt } from "@/tests/support/java-exclusivity-worker";
import { pollUntil } from "@/tests/support/pulsar";

// ExclusivityCounter on its own, with no Pulsar consumer: JVM processes (the test kit's
// LockHolder) that take a real Redis lock with SET NX PX and do their work inside the counter,
// reporting to a real Baton ingest.

const db = openDb();
const redis = new Redis({ host: "127.0.0.1", port: 6379 });
const workers = workerPool();
let baton: RouteServer;
let token: string;
const lockKeys: string[] = [];

beforeAll(async () => {
  await ensureJavaClientBuilt({ log: (line) => console.log(line) });
  token = await createTestToken(db, "java-counter");
  baton = await startBaton();
}, 600_000);

afterEach(async () => {
  await workers.stopAll();
  if (lockKeys.length > 0) await redis.del(...lockKeys.splice(0));
});

afterAll(async () => {
  await baton.close();
  await redis.quit();
  await db.$disconnect();
});

describe("ExclusivityCounter under a Redis lock", () => {
  it("reports a violation naming both holders and the lock when a stalled holder's lock expired and another took it", async () => {
    const { service, keyPrefix } = uniqueService();
    const lockKey = `baton-test:lock:${randomUUID()}`;
    lockKeys.push(lockKey);
    const lockRef = `test-locks/${lockKey}`;
    const inside = `${keyPrefix}${service}:daily-job:inside`;
    const common = { lockKey, lockRef, key: "daily-job", lockTtlMs: 1_000, batonUrl: baton.url, token, keyPrefix, service };
    const [first, second] = await Promise.all([
      workers.launchLockHolder({ ...common, name: "jvm-holder-a" }),
      workers.launchLockHolder({ ...common, name: "jvm-holder-b" }),
    ]);

    first.send("acquire");
    await first.next("inside");
    expect(await redis.get(lockKey)).toBe("jvm-holder-a");
    // The entry reaches Redis from the counter's background queue.
    await pollUntil(
      () => redis.hlen(inside),
      (entries) => entries === 1,
      { description: "the first holder's entry in Redis" },
    );
    // The first holder stays inside without extending its lock: the lock expires (1 s) and the
    // second, which waited for it, takes it and enters while the first is still inside.
    second.send("acquire");
    await second.next("inside");
    expect(await redis.get(lockKey)).toBe("jvm-holder-b");
    // Both inside at once in Redis before the first leaves (entries are queued, not awaited, by enter).
    await pollUntil(
      () => redis.hlen(inside),
      (entries) => entries === 2,
      { description: "the second holder's entry in Redis" },
    );
    first.send("leave");
    expect((await first.next("left")).rest).toBe("lost");
    second.send("leave");
    expect((await second.next("left")).rest).toBe("held");
    const [firstStats, secondStats] = await Promise.all([first.close(), second.close()]);

    expect(firstStats).toMatchObject({ entered: 1, violations: 0, notCounted: 0, eventsSent: 1 });
    expect(secondStats).toMatchObject({ entered: 1, violations: 1, notCounted: 0, eventsSent: 1 });
    const rows = await db.exclusivityEvent.findMany({
      where: { service },
      orderBy: { observedAt: "asc" },
      select: { key: true, counter: true, worker: true, lock: true, othersInside: true, topic: true },
    });
    expect(rows).toEqual([
      { key: "daily-job", counter: 0, worker: "jvm-holder-a", lock: lockRef, othersInside: null, topic: null },
      {
        key: "daily-job",
        counter: 1,
        worker: "jvm-holder-b",
        lock: lockRef,
        othersInside: [{ worker: "jvm-holder-a", enteredAt: expect.any(Number) }],
        topic: null,
      },
    ]);
    // Both left: nothing of the service is inside any key any more.
    expect(await redis.keys(`${keyPrefix}${service}:*`)).toEqual([]);
  });
});
