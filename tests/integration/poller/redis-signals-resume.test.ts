import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import type { SourceCycles } from "@/lib/poller/source-cycles";
import { parseRedisClusterConfig } from "@/lib/sources/redis";
import { toHoldSource } from "@/lib/sources/redis/redis-runtime";
import { pollUntil } from "@/tests/support/poll-until";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";

// Baton started while Redis is down: its log says "lock change signals: none". When Redis comes
// back the signals resume, and the log must say so rather than leave "none" as the last word.

let server: TestRedisServer;
let cycles: SourceCycles | undefined;
const logs: string[] = [];

beforeAll(async () => {
  server = await startRedisServer({ notifyKeyspaceEvents: "K$gx" });
  await server.stop();
}, 60_000);

afterAll(async () => {
  await cycles?.close();
  await stopRedisServers(server ? [server] : []);
});

const RESUMED_TO_BOTH = /^lock change signals: both \(resumed; were (none|notifications|tracking)\)$/;

describe("lock change signals after Redis comes back", () => {
  it("logs 'none' at start, then that they resumed, once", async () => {
    const config = {
      ...parseRedisClusterConfig({ kind: "redis", name: "resume", url: server.url, requestTimeoutMs: 300, patterns: [{ match: "lock:*" }] }),
      pollIntervalMs: 200,
    };
    cycles = await openHoldCycles(toHoldSource(config), [], {
      resourceKind: "REDIS_LOCK",
      discoveryIntervalMs: 1_000,
      pollIntervalMs: 200,
      log: (line) => logs.push(line),
    });
    expect(logs).toContain("lock change signals: none");
    await server.restart();
    const running = cycles;
    await pollUntil(
      async () => {
        running.commit(await running.run());
        return logs;
      },
      (lines) => lines.some((line) => RESUMED_TO_BOTH.test(line)),
      { description: "the log to say the signals resumed", maxAttempts: 150 },
    );
    // The two signals (keyspace notifications and client tracking) come back on connections of
    // their own: together, or one before the other on a loaded machine. Each change is said once.
    const modes = logs.filter((line) => line.startsWith("lock change signals:"));
    expect(modes[0]).toBe("lock change signals: none");
    expect(modes.at(-1)).toMatch(RESUMED_TO_BOTH);
    expect(modes.slice(1).every((line) => line.includes("(resumed; were "))).toBe(true);
    expect(new Set(modes).size).toBe(modes.length);
  });
});
