import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createRedisLockSource, type KeyHint, parseRedisClusterConfig, watchLockKeys } from "@/lib/sources/redis";
import { resolveEndpoints } from "@/lib/sources/redis/redis-connection";
import { pollUntil } from "@/tests/support/poll-until";
import { deleteKeysWithPrefix, MACHINE_REDIS_URL, startRedisServer, stopRedisServers, type TestRedisServer, uniquePrefix } from "@/tests/support/redis-servers";

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true });
  redis.on("error", () => undefined);
  return redis;
}

describe("watchLockKeys with keyspace notifications on a test-owned server", () => {
  let server: TestRedisServer;

  beforeAll(async () => {
    // Notifications are set on this test server only, never on the machine's Redis.
    server = await startRedisServer({ notifyKeyspaceEvents: "K$gxh" });
  });

  afterAll(async () => {
    await stopRedisServers(server ? [server] : []);
  });

  it("reports a holder's set and the key's expiry, by notification (with the event) and by tracking", async () => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({ kind: "redis", name: "hints", url: server.url, patterns: [{ match: "lock:*" }, { match: "*:leader" }] }),
    );
    const admin = client(server.url);
    const hints: KeyHint[] = [];
    try {
      const watcher = await source.watch(
        (keys) => hints.push(...keys),
        () => undefined,
      );
      expect(watcher.mode).toBe("both");
      // Notifications cover a pattern without a literal prefix too.
      expect(watcher.pollOnlyPatterns).toEqual([]);

      await admin.set("cache:other", "x");
      await admin.set("lock:daily-job", "pod-a:1", "PX", 300, "NX");
      await pollUntil(
        async () => hints.filter((hint) => hint.key === "lock:daily-job").length,
        (count) => count >= 2,
        { description: "hints of the set" },
      );
      const setHints = hints.filter((hint) => hint.key === "lock:daily-job");
      expect(setHints.some((hint) => hint.event === "set")).toBe(true);
      expect(setHints.some((hint) => hint.event === null)).toBe(true);

      // The holder never renews: Redis deletes the key when it expires.
      hints.length = 0;
      await pollUntil(
        async () => hints,
        (list) => list.some((hint) => hint.event === "expired") && list.some((hint) => hint.event === null),
        {
          description: "expiry hints (notification and tracking)",
          maxAttempts: 200,
        },
      );
      expect(hints.every((hint) => hint.key === "lock:daily-job")).toBe(true);

      await admin.set("app:leader", "pod-b");
      await pollUntil(async () => hints.some((hint) => hint.key === "app:leader" && hint.event === "set"), Boolean, {
        description: "a hint for the prefix-less pattern",
      });
      expect(hints.some((hint) => hint.key === "cache:other")).toBe(false);
      await watcher.stop();
    } finally {
      admin.disconnect();
      await source.close();
    }
  });
});

describe("watchLockKeys on the machine's Redis (notifications off)", () => {
  const prefix = uniquePrefix("watch");
  const admin = client(MACHINE_REDIS_URL);

  afterAll(async () => {
    await deleteKeysWithPrefix(admin, prefix);
    admin.disconnect();
  });

  it("uses client tracking alone, reports deletes without an event, and names the patterns it can only poll", async () => {
    const source = createRedisLockSource(
      parseRedisClusterConfig({
        kind: "redis",
        name: "machine-hints",
        url: MACHINE_REDIS_URL,
        patterns: [{ match: `${prefix}lock:*` }, { match: `*:${prefix}leader` }],
      }),
    );
    const hints: KeyHint[] = [];
    try {
      const watcher = await source.watch(
        (keys) => hints.push(...keys),
        () => undefined,
      );
      expect(watcher.mode).toBe("tracking");
      expect(watcher.pollOnlyPatterns).toEqual([`*:${prefix}leader`]);
      await admin.set(`${prefix}lock:a`, "t1", "PX", 10_000);
      await admin.del(`${prefix}lock:a`);
      await pollUntil(
        async () => hints.length,
        (count) => count >= 2,
        { description: "tracking hints of the set and the delete" },
      );
      expect(hints.slice(0, 2)).toEqual([
        { key: `${prefix}lock:a`, pattern: `${prefix}lock:*`, kind: "change", event: null, at: expect.any(String) },
        { key: `${prefix}lock:a`, pattern: `${prefix}lock:*`, kind: "change", event: null, at: expect.any(String) },
      ]);
      await watcher.stop();
    } finally {
      await source.close();
    }
  });
});

describe("watchLockKeys where CONFIG is refused (as managed Redis does)", () => {
  let server: TestRedisServer;

  beforeAll(async () => {
    server = await startRedisServer({ notifyKeyspaceEvents: "K$gx", extraArgs: ["--rename-command", "CONFIG", ""] });
  });

  afterAll(async () => {
    await stopRedisServers(server ? [server] : []);
  });

  it("treats notifications as unknown, says why, and relies on tracking", async () => {
    const patterns = parseRedisClusterConfig({ kind: "redis", name: "managed", url: server.url, patterns: [{ match: "lock:*" }] });
    const hints: KeyHint[] = [];
    const watcher = await watchLockKeys({
      endpoint: resolveEndpoints(patterns)[0]!,
      patterns: patterns.patterns,
      onKeys: (keys) => hints.push(...keys),
      onResync: () => undefined,
    });
    const admin = client(server.url);
    try {
      expect(watcher.mode).toBe("tracking");
      expect(watcher.notifications.state).toBe("unknown");
      expect(watcher.notifications.reason).toMatch(/^CONFIG GET notify-keyspace-events was refused \(ERR unknown command/);
      await admin.set("lock:x", "t", "PX", 5_000);
      await pollUntil(
        async () => hints.length,
        (count) => count >= 1,
        { description: "a tracking hint" },
      );
      expect(hints[0]).toMatchObject({ key: "lock:x", event: null });
    } finally {
      admin.disconnect();
      await watcher.stop();
    }
  });
});
