import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createRedisLockSource, type KeyHint, parseRedisClusterConfig, type RedisLockSource } from "@/lib/sources/redis";
import { pollUntil } from "@/tests/support/poll-until";
import { type RedissonContender, startRedissonContender } from "@/tests/support/redisson-contender";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";

// Redisson 3.45.1 on the JVM against a test-owned Redis (its fair locks write companion keys
// outside any test prefix, and a killed contender leaves them behind).

const WATCHDOG_MS = 1_500;

describe("Redisson locks", () => {
  let server: TestRedisServer;
  let contender: RedissonContender;
  let source: RedisLockSource;

  beforeAll(async () => {
    server = await startRedisServer({ notifyKeyspaceEvents: "K$gxh" });
    // A short watchdog lease (renewed every WATCHDOG_MS / 3) so renewals and expiry come soon.
    contender = await startRedissonContender(server.url, { watchdogMs: WATCHDOG_MS });
    // `*lock:*` also matches Redisson's own redisson_lock_queue:{...} and redisson_lock_timeout:{...}
    // keys; SCAN's TYPE filter keeps only the hashes.
    source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "redisson", url: server.url, patterns: [{ match: "*lock:*", layout: "redisson" }] }),
    );
  });

  afterAll(async () => {
    await source?.close();
    await contender?.kill();
    await stopRedisServers(server ? [server] : []);
  });

  const shortOwner = (threadId: string) => `${contender.clientId.slice(0, 8)}:${threadId}`;

  it("reads a reentrant RLock held twice, and a watchdog renewal that keeps the token", async () => {
    const waiting = await contender.acquire("h1", "lock", "rlock:a");
    await contender.next("h1", "acquired");
    const reentered = await contender.reenter("h1");
    expect(reentered.holdCount).toBe(2);

    const key = { key: "rlock:a", pattern: "*lock:*" };
    const first = (await source.observe([key])).observations[0]!;
    expect(first).toMatchObject({
      holder: shortOwner(waiting.threadId),
      holderToken: `${contender.clientId}:${waiting.threadId}`,
      waiters: [],
      details: { layout: "redisson", reentrancy: 2 },
    });
    expect(first.ttlMs).toBeGreaterThan(0);
    expect(first.ttlMs).toBeLessThanOrEqual(WATCHDOG_MS);

    // After more than a whole lease the lock is still there, with a later expiry and the same token.
    const { value: renewed } = await pollUntil(
      async () => (await source.observe([key])).observations[0]!,
      (observation) => observation.expiresAt !== null && Date.parse(observation.expiresAt) > Date.parse(first.expiresAt!) + WATCHDOG_MS,
      { description: "a watchdog renewal", maxAttempts: 100 },
    );
    expect(renewed.holderToken).toBe(first.holderToken);
    expect(renewed.details.reentrancy).toBe(2);

    await contender.release("h1");
    expect((await source.observe([key])).observations[0]).toMatchObject({ holder: null, holderToken: null });
  });

  it("lists a fair lock's waiters in queue order, and moves the lock to the first of them", async () => {
    const key = { key: "rlock:fair", pattern: "*lock:*" };
    const holder = await contender.acquire("f1", "fair", "rlock:fair");
    await contender.next("f1", "acquired");
    const second = await contender.acquire("f2", "fair", "rlock:fair");
    await pollUntil(
      async () => (await source.observe([key])).observations[0]!.waiters.length,
      (count) => count === 1,
      { description: "the first waiter queued" },
    );
    const third = await contender.acquire("f3", "fair", "rlock:fair");
    const { value: queued } = await pollUntil(
      async () => (await source.observe([key])).observations[0]!,
      (observation) => observation.waiters.length === 2,
      {
        description: "two waiters queued",
      },
    );
    expect(queued.holder).toBe(shortOwner(holder.threadId));
    expect(queued.waiters).toEqual([shortOwner(second.threadId), shortOwner(third.threadId)]);
    expect((queued.details.waiterTimeouts as unknown[]).length).toBe(2);

    // Discovery finds the lock hash once; the queue (list) and timeout (zset) keys are not locks.
    const discovered = await source.discover();
    expect(discovered.keys.map(({ key: found }) => found)).toEqual(["rlock:fair"]);

    await contender.release("f1");
    await contender.next("f2", "acquired");
    const { value: moved } = await pollUntil(
      async () => (await source.observe([key])).observations[0]!,
      (observation) => observation.holder === shortOwner(second.threadId),
      {
        description: "the lock to pass to the first waiter",
      },
    );
    expect(moved.waiters).toEqual([shortOwner(third.threadId)]);
    await contender.release("f2");
    await contender.next("f3", "acquired");
    await contender.release("f3");
  });

  it("sees a killed holder's lock expire, with the watcher reporting the expiry", async () => {
    const dying = await startRedissonContender(server.url, { watchdogMs: WATCHDOG_MS });
    const hints: KeyHint[] = [];
    const watcher = await source.watch(
      (keys) => hints.push(...keys),
      () => undefined,
    );
    try {
      // `*lock:*` has no literal prefix for client tracking: notifications alone cover it.
      expect(watcher.mode).toBe("notifications");
      expect(watcher.pollOnlyPatterns).toEqual([]);
      await dying.acquire("d1", "lock", "rlock:crash");
      await dying.next("d1", "acquired");
      const key = { key: "rlock:crash", pattern: "*lock:*" };
      expect((await source.observe([key])).observations[0]!.holderToken).toMatch(new RegExp(`^${dying.clientId}:`));
      await pollUntil(async () => hints.some((hint) => hint.key === "rlock:crash" && hint.event === "hincrby"), Boolean, { description: "the acquire's hint" });

      await dying.kill();
      await pollUntil(async () => hints.some((hint) => hint.key === "rlock:crash" && hint.event === "expired"), Boolean, {
        description: "the expiry notification",
        maxAttempts: 200,
      });
      expect((await source.observe([key])).observations[0]).toMatchObject({ holder: null });
    } finally {
      await watcher.stop();
      await dying.kill();
    }
  });
});
