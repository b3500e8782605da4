import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";

import { createRedisCounter, INSIDE_KEY_SUFFIX, MAX_OTHERS_INSIDE } from "@/lib/exclusivity-client";

// Real Redis at 127.0.0.1:6379; every key carries a prefix of its own.
const redis = new Redis({ host: "127.0.0.1", port: 6379, maxRetriesPerRequest: 1 });
const prefix = `baton-test:${randomUUID()}:`;

afterAll(async () => {
  const leftovers = await redis.keys(`${prefix}*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  await redis.quit();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createRedisCounter", () => {
  it("records who is inside, returns the others longest-inside first, and deletes the key when the last one exits", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}basic`;
    expect(await counter.enter(key, { entryId: "e1", worker: "pod-a" })).toEqual({ othersCount: 0, others: [] });
    await sleep(30);
    const second = await counter.enter(key, { entryId: "e2", worker: "pod-b" });
    expect(second.othersCount).toBe(1);
    expect(second.others.map((o) => o.worker)).toEqual(["pod-a"]);
    expect(second.others[0]!.insideForMs).toBeGreaterThanOrEqual(25);
    const third = await counter.enter(key, { entryId: "e3", worker: "pod:c" });
    expect(third.others.map((o) => o.worker)).toEqual(["pod-a", "pod-b"]);
    expect(third.others[0]!.insideForMs).toBeGreaterThanOrEqual(third.others[1]!.insideForMs);
    expect(await redis.hlen(key + INSIDE_KEY_SUFFIX)).toBe(3);
    await counter.exit(key, "e1");
    // A worker name with ':' survives the "<ms>:<worker>" encoding.
    expect((await counter.enter(key, { entryId: "e4", worker: "pod-d" })).others.map((o) => o.worker)).toEqual(["pod-b", "pod:c"]);
    for (const id of ["e2", "e3", "e4"]) await counter.exit(key, id);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
    // Exiting an entry that is already gone is not an error.
    await counter.exit(key, "e4");
  });

  it("gives every entry the key's expiry of ttlMs, renewed by each entry", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 5_000 });
    const key = `${prefix}ttl${INSIDE_KEY_SUFFIX}`;
    await counter.enter(`${prefix}ttl`, { entryId: "a", worker: "pod-a" });
    const first = await redis.pttl(key);
    expect(first).toBeGreaterThan(4_000);
    expect(first).toBeLessThanOrEqual(5_000);
    await sleep(200);
    await counter.enter(`${prefix}ttl`, { entryId: "b", worker: "pod-b" });
    expect(await redis.pttl(key)).toBeGreaterThan(first - 100);
    await counter.exit(`${prefix}ttl`, "a");
    await counter.exit(`${prefix}ttl`, "b");
  });

  it("prunes a crashed worker's entry once it is older than ttlMs, even while others keep the key busy", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 300 });
    const key = `${prefix}crash`;
    // pod-a crashes inside: it entered and never exits.
    await counter.enter(key, { entryId: "crashed", worker: "pod-a" });
    // Back-to-back overlaps keep the key alive past pod-a's ttl...
    const seen: string[][] = [];
    for (let i = 0; i < 5; i++) {
      seen.push((await counter.enter(key, { entryId: `busy-${i}`, worker: `pod-${i}` })).others.map((o) => o.worker));
      await sleep(100);
      if (i > 0) await counter.exit(key, `busy-${i - 1}`);
    }
    // ...but pod-a is reported only while its entry is younger than 300 ms.
    expect(seen[0]).toContain("pod-a");
    expect(seen[4]).not.toContain("pod-a");
    expect(await redis.hexists(key + INSIDE_KEY_SUFFIX, "crashed")).toBe(0);
    await counter.exit(key, "busy-4");
  });

  it("forgets a key nobody enters again: it expires ttlMs after its last entry", async () => {
    const counter = createRedisCounter(redis, { ttlMs: 150 });
    const key = `${prefix}leak`;
    await counter.enter(key, { entryId: "crashed", worker: "pod-a" });
    await expect.poll(() => redis.exists(key + INSIDE_KEY_SUFFIX), { timeout: 2_000, interval: 50 }).toBe(0);
    expect(await counter.enter(key, { entryId: "next", worker: "pod-b" })).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "next");
  });

  it("counts every other entry but names at most MAX_OTHERS_INSIDE of them", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}many`;
    const ids = Array.from({ length: MAX_OTHERS_INSIDE + 5 }, (_, i) => `e${i}`);
    for (const id of ids) await counter.enter(key, { entryId: id, worker: `pod-${id}` });
    const last = await counter.enter(key, { entryId: "last", worker: "pod-last" });
    expect(last.othersCount).toBe(ids.length);
    expect(last.others).toHaveLength(MAX_OTHERS_INSIDE);
    for (const id of [...ids, "last"]) await counter.exit(key, id);
    expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
  });

  it("keeps clear of an older client's plain counter under the same name", async () => {
    const counter = createRedisCounter(redis);
    const key = `${prefix}old-counter`;
    await redis.set(key, "3");
    expect(await counter.enter(key, { entryId: "new", worker: "pod-a" })).toEqual({ othersCount: 0, others: [] });
    await counter.exit(key, "new");
    expect(await redis.get(key)).toBe("3");
    await redis.del(key);
  });

  it("sees every concurrent entry exactly once under many connections", async () => {
    const connections = Array.from({ length: 8 }, () => new Redis({ host: "127.0.0.1", port: 6379 }));
    try {
      const key = `${prefix}concurrent`;
      const entries = connections.flatMap((connection, c) => Array.from({ length: 25 }, (_, i) => ({ connection, entryId: `c${c}-${i}` })));
      const seen = await Promise.all(entries.map(({ connection, entryId }) => createRedisCounter(connection).enter(key, { entryId, worker: entryId })));
      expect(seen.map((s) => s.othersCount).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
      await Promise.all(entries.map(({ connection, entryId }) => createRedisCounter(connection).exit(key, entryId)));
      expect(await redis.exists(key + INSIDE_KEY_SUFFIX)).toBe(0);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });
});
