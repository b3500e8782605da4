// Benchmark: how soon a lock's end reaches a change row, on real Redis servers, through the
// worker's poller. A lock is released (DEL) or its holder dies and the lock expires (its TTL
// runs out); the clock starts at the DEL, or at the TTL's end, and stops at the change row's
// commit. Three ways of learning about it: keyspace notifications plus client tracking, client
// tracking alone (no server setting needed), and polls alone (a pattern with no literal prefix).
// Targets: p95 under 1 s with signals, under the poll interval + 1 s without.
// Run: npm run bench:redis-latency [-- --interval-ms 1000 --trials 20]
import { parseArgs } from "node:util";

import { Redis } from "ioredis";

import { loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { createTestDb, registerCluster, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { "interval-ms": { type: "string", default: "1000" }, trials: { type: "string", default: "20" } } });
const intervalMs = Number(values["interval-ms"]);
const trials = Number(values.trials);
/** Long enough for a poll to see each holder before its lock expires (polls alone see nothing shorter). */
const TTL_MS = 2 * intervalMs;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summarise(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted.at(-1)} ms`;
}

type Mode = { label: string; server: TestRedisServer; match: string; key: string; targetMs: number };

async function measure(db: Db, databaseUrl: string, mode: Mode): Promise<{ release: number[]; expiry: number[] }> {
  const name = `lat-${mode.label.replace(/\W+/g, "-")}`;
  const cluster = loadConfig({
    BATON_CLUSTERS: JSON.stringify([
      { kind: "redis", name, url: mode.server.url, pollIntervalMs: intervalMs, discoveryIntervalMs: 60_000, patterns: [{ match: mode.match }] },
    ]),
  }).clusters[0]!;
  const clusterId = await registerCluster(db, cluster);
  const redis = new Redis(mode.server.url);
  // The lock exists before the poller starts, so discovery knows it from the first cycle.
  await redis.set(mode.key, "warm-up", "PX", 60_000);
  const poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: `bench-${name}` });
  const stored = async () =>
    (await db.heldResource.findFirst({ where: { clusterId, resourceKey: mode.key }, select: { holderToken: true } }))?.holderToken ?? null;
  const result = { release: [] as number[], expiry: [] as number[] };
  try {
    await waitFor(stored, (token) => token === "warm-up", "the first poll", 300, 50);
    for (let i = 0; i < trials * 2; i++) {
      const isExpiry = i % 2 === 1;
      const token = `pod-${i}`;
      await redis.set(mode.key, token, "PX", isExpiry ? TTL_MS : 60_000);
      await waitFor(stored, (t) => t === token, "Baton to see the new holder", 600, 20);
      const lastId = (await db.holderChange.findFirst({ where: { clusterId }, orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0n;
      let endedAt: number;
      if (isExpiry) {
        const pttl = await redis.pttl(mode.key);
        endedAt = Date.now() + Math.max(0, pttl);
      } else {
        // A random phase against the poll cycle, as a real release would have.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * intervalMs));
        endedAt = Date.now();
        await redis.del(mode.key);
      }
      const row = await waitFor(
        () => db.holderChange.findFirst({ where: { clusterId, id: { gt: lastId }, kind: "HOLDER_LOST" }, select: { detectedAt: true } }),
        (r) => r !== null,
        "the change row",
        1_000,
        10,
      );
      (isExpiry ? result.expiry : result.release).push(row!.detectedAt.getTime() - endedAt);
    }
  } finally {
    await poller.stop();
    redis.disconnect();
  }
  return result;
}

async function main(): Promise<void> {
  const database = await startTestDatabase();
  const db = createTestDb(database.url);
  const withNotifications = await startRedisServer({ notifyKeyspaceEvents: "K$gx" });
  const plain = await startRedisServer();
  try {
    const modes: Mode[] = [
      { label: "notifications + tracking", server: withNotifications, match: "lock:*", key: "lock:bench", targetMs: 1_000 },
      { label: "tracking only", server: plain, match: "lock:*", key: "lock:bench", targetMs: 1_000 },
      // No literal prefix: neither tracking nor (off here) notifications can cover it.
      { label: "polls only", server: plain, match: "*:bench-lock", key: "job:bench-lock", targetMs: intervalMs + 1_000 },
    ];
    console.log(`lock end -> change row committed (${trials} releases and ${trials} expiries per mode, poll interval ${intervalMs} ms, TTL ${TTL_MS} ms):`);
    for (const mode of modes) {
      const { release, expiry } = await measure(db, database.url, mode);
      console.log(`  ${mode.label.padEnd(26)} release: ${summarise(release)}; expiry: ${summarise(expiry)} (target p95 < ${mode.targetMs} ms)`);
    }
  } finally {
    await stopRedisServers([withNotifications, plain]);
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
