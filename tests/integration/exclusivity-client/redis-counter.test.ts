import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";

import { createRedisCounter } from "@/lib/exclusivity-client";

// Real Redis at 127.0.0.1:6379; every key carries a prefix of its own.
const redis = new Redis({ host: "127.0.0.1", port: 6379, maxRetriesPerRequest: 1 });
const prefix = `baton-test:${randomUUID()}:`;

afterAll(async () => {
  const leftovers = await redis.keys(`${prefix}*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

describe("createRedisCounter", () => {
  it("increments and decrements atomically, returning the new value, and deletes the key at zero", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}basic`;
    expect(await counter.increment(key)).toBe(1);
    expect(await counter.increment(key)).toBe(2);
    expect(await counter.decrement(key)).toBe(1);
    expect(await redis.get(key)).toBe("1");
    expect(await counter.decrement(key)).toBe(0);
    expect(await redis.exists(key)).toBe(0);
  });

  it("gives a key a TTL when it is created and does not extend it", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 5_000 });
    const key = `${prefix}ttl`;
    await counter.increment(key);
    const first = await redis.pttl(key);
    expect(first).toBeGreaterThan(4_000);
    expect(first).toBeLessThanOrEqual(5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await counter.increment(key);
    expect(await redis.pttl(key)).toBeLessThan(first);
    await counter.decrement(key);
    await counter.decrement(key);
  });

  it("forgets a leaked increment when the key expires", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 150 });
    const key = `${prefix}leak`;
    // A worker that crashed inside: incremented, never decremented.
    await counter.increment(key);
    await expect.poll(() => redis.exists(key), { timeout: 2_000, interval: 50 }).toBe(0);
    expect(await counter.increment(key)).toBe(1);
    await counter.decrement(key);
  });

  it("sets a TTL on a key some other client created without one", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 10_000 });
    const key = `${prefix}no-ttl`;
    await redis.set(key, "3");
    expect(await counter.increment(key)).toBe(4);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    await redis.del(key);
  });

  it("repairs a count that went below zero (the key expired while workers were inside)", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}negative`;
    expect(await counter.decrement(key)).toBe(-1);
    expect(await redis.exists(key)).toBe(0);
    expect(await counter.increment(key)).toBe(1);
    await counter.decrement(key);
  });

  it("counts exactly under many concurrent connections", async () => {
    const connections = Array.from({ length: 8 }, () => new Redis({ host: "127.0.0.1", port: 6379 }));
    try {
      const key = `${prefix}concurrent`;
      const seen = await Promise.all(connections.flatMap((connection) => Array.from({ length: 25 }, () => createRedisCounter(connection).increment(key))));
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      await Promise.all(connections.flatMap((connection) => Array.from({ length: 25 }, () => createRedisCounter(connection).decrement(key))));
      expect(await redis.exists(key)).toBe(0);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });
});
