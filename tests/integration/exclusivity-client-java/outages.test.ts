import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import type { RouteServer } from "@/tests/bench/route-server";
import { createTestToken, openDb } from "@/tests/integration/ingest/ingest-test-kit";
import { ackedValues, produceKeyed, startBaton, uniqueService, workerPool } from "@/tests/integration/exclusivity-client-java/java-kit";
import { ensureJavaClientBuilt, runJavaProgram } from "@/tests/support/java-exclusivity-worker";
import { createTestNamespace, pollUntil } from "@/tests/support/pulsar";
import { findFreePort } from "@/tools/free-port";

// What the Java interceptor does when Baton or Redis is down: the consumer goes on, and what
// could not be counted or sent is counted, logged, and (for Baton) sent once it is back.

const db = openDb();
const workers = workerPool();
let token: string;
let namespace: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  await ensureJavaClientBuilt({ log: (line) => console.log(line) });
  token = await createTestToken(db, "java-outages");
  namespace = await createTestNamespace("java-outages");
}, 600_000);

afterEach(() => workers.stopAll());

afterAll(async () => {
  await namespace.cleanup();
  await db.$disconnect();
});

describe("a Baton that is down, then up", () => {
  let baton: RouteServer | null = null;
  afterEach(async () => {
    await baton?.close();
    baton = null;
  });

  it("loses nothing the bounded buffer held: every event lands once Baton answers", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("baton-down");
    // Nothing listens on this port until Baton is started on it below.
    const port = await findFreePort();
    const worker = await workers.start({
      topic,
      subscription: "orders",
      type: "Shared",
      name: "jvm-patient",
      batonUrl: `http://127.0.0.1:${port}`,
      token,
      keyPrefix,
      service,
      maxBufferedEvents: 1_000,
    });
    await produceKeyed(topic, 300, 30, "m");
    await pollUntil(
      async () => ackedValues(worker).length,
      (acked) => acked === 300,
      { maxAttempts: 600, description: "300 messages acknowledged while Baton is down" },
    );
    expect(await db.exclusivityEvent.count({ where: { service } })).toBe(0);

    baton = await startBaton(port);
    worker.send("flush");
    expect((await worker.next("flushed")).rest).toBe("true");
    const stats = await worker.close();
    expect(stats).toMatchObject({ entered: 300, notCounted: 0, eventsSent: 300, eventsDropped: 0, eventsBuffered: 0 });
    expect(await db.exclusivityEvent.count({ where: { service } })).toBe(300);
  });
});

describe("a Redis that is down", () => {
  it("does not stop consumption; what could not be counted is counted and logged", async () => {
    const { service, keyPrefix } = uniqueService();
    const topic = namespace.topic("redis-down");
    const baton = await startBaton();
    try {
      const deadRedisPort = await findFreePort();
      const worker = await workers.start({
        topic,
        subscription: "orders",
        type: "Shared",
        name: "jvm-no-redis",
        batonUrl: baton.url,
        token,
        keyPrefix,
        service,
        redisUrl: `redis://127.0.0.1:${deadRedisPort}`,
        lossLogIntervalMs: 500,
      });
      await produceKeyed(topic, 100, 10, "m");
      await pollUntil(
        async () => ackedValues(worker).length,
        (acked) => acked === 100,
        { maxAttempts: 600, description: "100 messages acknowledged with Redis down" },
      );
      await pollUntil(
        async () => worker.stderr(),
        (stderr) => stderr.includes("entries or exits not counted"),
        { maxAttempts: 100, description: "the loss log line" },
      );
      const stats = await worker.close();
      expect(stats.entered).toBe(0);
      // Every entry and every exit is accounted for as not counted.
      expect(stats.notCounted).toBe(200);
      expect(worker.stderr()).toMatch(/baton-exclusivity \S+\/jvm-no-redis: \d+ entries or exits not counted \(last Redis error: JedisConnectionException/);
    } finally {
      await baton.close();
    }
  });
});

describe("BatonSettings", () => {
  it.each([
    [{ batonUrl: "ftp://baton" }, "baton-exclusivity setting batonUrl: must be an http(s) URL with a host (got ftp://baton)"],
    [{ token: "" }, "baton-exclusivity setting batonToken: is required (got a blank string)"],
    [{ redisUrl: "127.0.0.1:6379" }, "baton-exclusivity setting redisUrl: must be redis://host:port (got 127.0.0.1:6379)"],
    [{ maxBatch: 20_000 }, "baton-exclusivity setting maxBatch: must be between 1 and 10000 (got 20000)"],
    [{ keyTtlMs: 0 }, "baton-exclusivity setting keyTtlMs: must be between 1 and 2147483647 (got 0)"],
    [{ keySampleRate: 0 }, "baton-exclusivity setting keySampleRate: must be above 0 and at most 1 (got 0.0)"],
    [{ keySampleRate: 1.5 }, "baton-exclusivity setting keySampleRate: must be above 0 and at most 1 (got 1.5)"],
  ])("refuses %j at construction with one line naming the setting", async (args, message) => {
    const result = await runJavaProgram("SettingsCheck", args);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`error ${message}\n`);
  });

  it("accepts good settings", async () => {
    expect((await runJavaProgram("SettingsCheck", {})).stdout).toBe("ok\n");
  });
});
