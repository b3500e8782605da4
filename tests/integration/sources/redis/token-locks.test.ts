import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import Redlock from "redlock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createCommandLimiter, createRedisLockSource, parseRedisClusterConfig, type RedisLockSource } from "@/lib/sources/redis";
import { shortenToken } from "@/lib/sources/redis/lock-observation";
import { pollUntil } from "@/tests/support/poll-until";
import { deleteKeysWithPrefix, MACHINE_REDIS_URL, startRedisServer, stopRedisServers, type TestRedisServer, uniquePrefix } from "@/tests/support/redis-servers";

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  redis.on("error", () => undefined);
  return redis;
}

async function scanCallsOf(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  return Number(/cmdstat_scan:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

describe("token locks on the machine's Redis", () => {
  const prefix = uniquePrefix("token");
  const admin = client(MACHINE_REDIS_URL);
  const holderClient = client(MACHINE_REDIS_URL);
  const redlock = new Redlock([holderClient], { retryCount: 0 });
  let source: RedisLockSource;

  beforeAll(() => {
    source = createRedisLockSource(
      parseRedisClusterConfig({
        kind: "redis",
        name: "machine",
        url: MACHINE_REDIS_URL,
        patterns: [
          { match: `${prefix}lock:*` },
          { match: `${prefix}py:*`, holderPattern: "^(?<holder>pod-\\d+):" },
          { match: `${prefix}shedlock:*`, holderPattern: "@(?<holder>[^:]+):" },
          { match: `${prefix}leader`, mustBeHeld: true },
        ],
      }),
    );
  });

  afterAll(async () => {
    await source.close();
    await deleteKeysWithPrefix(admin, prefix);
    admin.disconnect();
    holderClient.disconnect();
  });

  it("sees a node-redlock lock: holder, exact token, TTL from the answer's time; then its release", async () => {
    const lock = await redlock.acquire([`${prefix}lock:daily-job`], 10_000);
    const discovered = await source.discover();
    expect(discovered.errors).toEqual([]);
    expect(discovered.keys).toEqual([
      { key: `${prefix}lock:daily-job`, pattern: `${prefix}lock:*` },
      // A pattern without wildcards names its key even while nobody holds it.
      { key: `${prefix}leader`, pattern: `${prefix}leader` },
    ]);

    const before = new Date().toISOString();
    const held = await source.observe(discovered.keys);
    const after = new Date().toISOString();
    expect(held.errors).toEqual([]);
    const [daily, leader] = held.observations;
    expect(daily).toMatchObject({
      resourceKey: `${prefix}lock:daily-job`,
      holder: shortenToken(lock.value),
      holderToken: lock.value,
      isSplit: false,
      waiters: [],
    });
    expect(daily!.observedAt >= before && daily!.observedAt <= after).toBe(true);
    expect(daily!.ttlMs).toBeGreaterThan(0);
    expect(daily!.ttlMs).toBeLessThanOrEqual(10_000);
    expect(Date.parse(daily!.expiresAt!) - Date.parse(daily!.observedAt)).toBe(daily!.ttlMs);
    expect(leader).toMatchObject({ holder: null, holderToken: null, details: { mustBeHeld: true } });

    // An extension (node-redlock's extend, or its automatic extension in `using`) keeps the
    // token and moves the expiry: not a change of holder.
    const extended = await lock.extend(60_000);
    const afterExtension = (await source.observe([discovered.keys[0]!])).observations[0]!;
    expect(afterExtension.holderToken).toBe(lock.value);
    expect(Date.parse(afterExtension.expiresAt!)).toBeGreaterThan(Date.parse(daily!.expiresAt!));

    await extended.release();
    const released = await source.observe([{ key: `${prefix}lock:daily-job`, pattern: `${prefix}lock:*` }]);
    expect(released.observations[0]).toMatchObject({ holder: null, holderToken: null, expiresAt: null });
  });

  it("reads redis-py and ShedLock values through holderPattern, and a lock without TTL", async () => {
    const pyToken = `pod-7:${randomUUID().replaceAll("-", "")}`;
    await admin.set(`${prefix}py:orders`, pyToken, "PX", 30_000, "NX");
    await admin.set(`${prefix}shedlock:report`, `ADDED:2026-11-24T10:00:00.000Z@worker-3.prod:${randomUUID()}`, "PX", 30_000, "NX");
    await admin.set(`${prefix}lock:forever`, "manual", "NX");
    const { keys } = await source.discover();
    const { observations, errors } = await source.observe(keys);
    expect(errors).toEqual([]);
    const byKey = new Map(observations.map((observation) => [observation.resourceKey, observation]));
    expect(byKey.get(`${prefix}py:orders`)).toMatchObject({ holder: "pod-7", holderToken: pyToken });
    expect(byKey.get(`${prefix}shedlock:report`)!.holder).toBe("worker-3.prod");
    expect(byKey.get(`${prefix}lock:forever`)).toMatchObject({ holder: "manual", expiresAt: null, ttlMs: null, details: { neverExpires: true } });
  });

  it("sees a lock expire when its holder dies without releasing", async () => {
    const dying = client(MACHINE_REDIS_URL);
    const lock = await new Redlock([dying], { retryCount: 0 }).acquire([`${prefix}lock:crashy`], 800);
    dying.disconnect();
    const key = { key: `${prefix}lock:crashy`, pattern: `${prefix}lock:*` };
    expect((await source.observe([key])).observations[0]!.holderToken).toBe(lock.value);
    const { value } = await pollUntil(
      () => source.observe([key]),
      (result) => result.observations[0]?.holder === null,
      { description: "the lock to expire" },
    );
    expect(value.errors).toEqual([]);
  });
});

describe("discovery among many other keys, on a test-owned server", () => {
  let server: TestRedisServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = client(server.url);
    // 100,000 other keys, written in pipelines of 10,000.
    for (let batch = 0; batch < 10; batch++) {
      const pipeline = admin.pipeline();
      for (let index = 0; index < 10_000; index++) pipeline.set(`cache:${batch}:${index}`, "x");
      await pipeline.exec();
    }
    const pipeline = admin.pipeline();
    for (let index = 0; index < 50; index++) pipeline.set(`lock:job-${index}`, `token-${index}`, "PX", 600_000);
    // A hash under the lock prefix (a job's data, not a token lock): SCAN's TYPE filter drops it.
    pipeline.hset("lock:job-data", "progress", "10");
    await pipeline.exec();
  });

  afterAll(async () => {
    admin.disconnect();
    await stopRedisServers(server ? [server] : []);
  });

  it("finds exactly the locks with SCAN MATCH, and the commands counted are the commands Redis served", async () => {
    const limiter = createCommandLimiter({ commandsPerSecond: 100_000 });
    const source = createRedisLockSource(parseRedisClusterConfig({ kind: "redis", name: "many", url: server.url, patterns: [{ match: "lock:*" }] }), limiter);
    try {
      const scansBefore = await scanCallsOf(admin);
      const result = await source.discover();
      const scansAfter = await scanCallsOf(admin);
      expect(result.isPassComplete).toBe(true);
      expect(result.keys.map(({ key }) => key).sort()).toEqual(Array.from({ length: 50 }, (_, index) => `lock:job-${index}`).sort());
      // 100,050 keys at COUNT 1,000: about a hundred calls, each walking ~1,000 keys.
      expect(result.scanCalls).toBe(scansAfter - scansBefore);
      expect(result.scanCalls).toBeGreaterThanOrEqual(90);
      expect(result.scanCalls).toBeLessThanOrEqual(200);
      expect(limiter.takeRequestCount()).toBe(result.scanCalls);

      // Observing 50 locks is one pipeline of 100 commands.
      const observed = await source.observe(result.keys);
      expect(observed.observations).toHaveLength(50);
      expect(limiter.takeRequestCount()).toBe(100);
    } finally {
      await source.close();
    }
  });

  it("resumes a pass across calls instead of walking everything at once", async () => {
    const source = createRedisLockSource(parseRedisClusterConfig({ kind: "redis", name: "resume", url: server.url, patterns: [{ match: "lock:*" }] }));
    try {
      const first = await source.discover({ maxScanCalls: 20 });
      expect(first).toMatchObject({ isPassComplete: false, scanCalls: 20 });
      let total = first.scanCalls;
      let last = first;
      while (!last.isPassComplete) {
        last = await source.discover({ maxScanCalls: 20 });
        total += last.scanCalls;
      }
      expect(last.keys).toHaveLength(50);
      // Resuming walked the table once, as a single pass would have.
      const single = await source.discover();
      expect(Math.abs(single.scanCalls - total)).toBeLessThanOrEqual(2);
    } finally {
      await source.close();
    }
  });
});

describe("a Redlock group of three test-owned masters", () => {
  let servers: TestRedisServer[];
  let admins: Redis[];
  let source: RedisLockSource;
  const key = { key: "leader:scheduler", pattern: "leader:*" };

  beforeAll(async () => {
    servers = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()]);
    admins = servers.map((server) => client(server.url));
    source = createRedisLockSource(
      parseRedisClusterConfig({
        kind: "redis",
        name: "group",
        urls: servers.map((server) => server.url),
        patterns: [{ match: "leader:*", mustBeHeld: true }],
        requestTimeoutMs: 1_000,
      }),
    );
  });

  afterAll(async () => {
    await source.close();
    for (const admin of admins) admin.disconnect();
    await stopRedisServers(servers ?? []);
  });

  it("names the token node-redlock wrote on a majority", async () => {
    const holders = servers.map((server) => client(server.url));
    const lock = await new Redlock(holders, { retryCount: 0 }).acquire([key.key], 20_000);
    try {
      const { keys } = await source.discover();
      expect(keys).toEqual([key]);
      // node-redlock resolves once a majority voted for it; the last master may get the token
      // a moment later. Held from the first read on, by all three soon after.
      const first = await source.observe(keys);
      expect(first.errors).toEqual([]);
      expect(first.observations[0]).toMatchObject({ holderToken: lock.value, isSplit: false, details: { redlock: true, majority: 2 } });
      const { value } = await pollUntil(
        () => source.observe(keys),
        (result) => result.observations[0]?.details.holdingMasters === 3,
        { description: "the token on all three masters" },
      );
      expect(value.observations[0]).toMatchObject({ holderToken: lock.value, isSplit: false });
      expect(value.observations[0]!.ttlMs).toBeGreaterThan(0);
      // node-redlock's release resolves once a majority released; the last master may still
      // hold the token for a moment, which reads as a (short) split.
      await lock.release();
      await pollUntil(
        () => source.observe(keys),
        (result) => result.observations[0]?.holder === null && !result.observations[0].isSplit,
        { description: "the group to be free" },
      );
    } finally {
      for (const holder of holders) holder.disconnect();
      await Promise.all(admins.map((admin) => admin.del(key.key)));
    }
  });

  it("calls different tokens without a majority a split, and says which tokens where", async () => {
    await admins[0]!.set(key.key, "token-a", "PX", 20_000);
    await admins[1]!.set(key.key, "token-b", "PX", 20_000);
    const { observations } = await source.observe([key]);
    expect(observations[0]).toMatchObject({ holder: null, holderToken: null, isSplit: true });
    expect(observations[0]!.details.masters).toEqual({
      [`127.0.0.1:${servers[0]!.port}`]: "token-a",
      [`127.0.0.1:${servers[1]!.port}`]: "token-b",
      [`127.0.0.1:${servers[2]!.port}`]: null,
    });
    await Promise.all(admins.map((admin) => admin.del(key.key)));
  });

  it("with a master stopped: decides when two agree, reports the master; cannot decide when they differ", async () => {
    await servers[2]!.stop();
    try {
      await admins[0]!.set(key.key, "token-a", "PX", 20_000);
      await admins[1]!.set(key.key, "token-a", "PX", 20_000);
      const agreed = await source.observe([key]);
      expect(agreed.observations[0]).toMatchObject({ holderToken: "token-a", details: { masters: { [`127.0.0.1:${servers[2]!.port}`]: "unknown" } } });
      expect(agreed.errors).toHaveLength(1);
      expect(agreed.errors[0]).toMatchObject({ master: `127.0.0.1:${servers[2]!.port}` });
      expect(agreed.errors[0]!.message).toMatch(/connection refused|not connected/);

      await admins[1]!.del(key.key);
      const undecided = await source.observe([key]);
      expect(undecided.observations).toEqual([]);
      expect(undecided.errors.find((error) => error.key === key.key)?.message).toContain("cannot decide");
    } finally {
      await servers[2]!.restart();
      await Promise.all(admins.slice(0, 2).map((admin) => admin.del(key.key)));
    }
  });
});

describe("a Redis that stops mid-run", () => {
  let server: TestRedisServer;

  beforeAll(async () => {
    server = await startRedisServer();
  });

  afterAll(async () => {
    await stopRedisServers(server ? [server] : []);
  });

  it("comes back as errors (not free locks), then observes and resyncs the watcher after a restart", async () => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "outage", url: server.url, patterns: [{ match: "lock:*" }], requestTimeoutMs: 1_000 }),
    );
    const admin = client(server.url);
    const resyncs: string[] = [];
    try {
      await admin.set("lock:nightly", `pod-1:${randomUUID()}`, "PX", 60_000);
      const { keys } = await source.discover();
      const watcher = await source.watch(
        () => undefined,
        (reason) => resyncs.push(reason),
      );
      expect(watcher.mode).toBe("tracking");
      expect((await source.observe(keys)).observations[0]!.holder).toMatch(/^pod-1:/);

      await server.stop();
      await pollUntil(
        async () => watcher.mode,
        (mode) => mode === "none",
        { description: "the watcher to notice the lost connection" },
      );
      const down = await source.observe(keys);
      expect(down.observations).toEqual([]);
      expect(down.errors).toEqual([
        {
          key: "lock:nightly",
          master: `127.0.0.1:${server.port}`,
          message: expect.stringMatching(/^Redis 127\.0\.0\.1:\d+: (connection refused|not connected)/),
        },
      ]);
      const discoveryDown = await source.discover();
      expect(discoveryDown.isPassComplete).toBe(false);
      expect(discoveryDown.errors).toHaveLength(1);

      await server.restart();
      // The restarted server is empty (no persistence): the lock is now truly free.
      const { value } = await pollUntil(
        () => source.observe(keys),
        (result) => result.errors.length === 0,
        { description: "observe to work again" },
      );
      expect(value.observations[0]).toMatchObject({ holder: null });
      await pollUntil(
        async () => resyncs.length,
        (count) => count > 0,
        { description: "onResync after the reconnect" },
      );
      expect(resyncs[0]).toContain("reconnected");
      await pollUntil(
        async () => watcher.mode,
        (mode) => mode === "tracking",
        { description: "tracking again after the reconnect" },
      );
      await watcher.stop();
    } finally {
      admin.disconnect();
      await source.close();
    }
  });
});
