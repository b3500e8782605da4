// Benchmark: discovering and reading Redis locks at scale. 10,000 locks among 1,000,000 other
// keys on a test-owned redis-server: a full SCAN discovery within the commands-per-second
// budget, for several COUNTs, then one observe() pipeline of the 10,000 locks. Prints wall time,
// commands sent (Baton's count and Redis's own), Redis's CPU (INFO cpu) and the longest time one
// SCAN held Redis (INFO commandstats). Run: npm run bench:redis-scan [-- --counts 100,250,1000,10000 --budget 1000]
import { parseArgs } from "node:util";

import { Redis } from "ioredis";

import { createCommandLimiter, createRedisLockSource, parseRedisClusterConfig } from "@/lib/sources/redis";
import { DEFAULT_COMMANDS_PER_SECOND, DEFAULT_SCAN_COUNT } from "@/lib/sources/redis/redis-config";
import { startRedisServer } from "@/tests/support/redis-servers";

const { values } = parseArgs({
  options: {
    counts: { type: "string", default: `100,250,${DEFAULT_SCAN_COUNT},10000` },
    budget: { type: "string", default: String(DEFAULT_COMMANDS_PER_SECOND) },
    locks: { type: "string", default: "10000" },
    others: { type: "string", default: "1000000" },
  },
});
const scanCounts = values.counts.split(",").map(Number);
const budget = Number(values.budget);
const lockCount = Number(values.locks);
const otherCount = Number(values.others);

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return read("used_cpu_sys") + read("used_cpu_user");
}

async function commandStats(redis: Redis, command: string): Promise<{ calls: number; usecPerCall: number }> {
  const info = await redis.info("commandstats");
  const match = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=\\d+,usec_per_call=([\\d.]+)`).exec(info);
  return { calls: Number(match?.[1] ?? 0), usecPerCall: Number(match?.[2] ?? 0) };
}

/** The slowest single command Redis logged (SLOWLOG with a 0 µs threshold keeps every command). */
async function slowestMicros(redis: Redis, command: string): Promise<number> {
  const entries = (await redis.call("SLOWLOG", "GET", "100000")) as [number, number, number, string[]][];
  return Math.max(0, ...entries.filter((entry) => entry[3][0]?.toLowerCase() === command).map((entry) => entry[2]));
}

async function main(): Promise<void> {
  // DEBUG POPULATE fills the database in one command; it is only allowed on this test server.
  const server = await startRedisServer({ extraArgs: ["--enable-debug-command", "local", "--slowlog-max-len", "100000"] });
  const admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
  try {
    await admin.call("DEBUG", "POPULATE", otherCount, "cache");
    for (let start = 0; start < lockCount; start += 5_000) {
      const pipeline = admin.pipeline();
      for (let index = start; index < Math.min(lockCount, start + 5_000); index++)
        pipeline.set(`lock:job-${index}`, `pod-${index % 50}:${index.toString(16).padStart(32, "0")}`, "PX", 3_600_000);
      await pipeline.exec();
    }
    console.log(`redis-server ${server.port}: ${await admin.dbsize()} keys (${lockCount} locks), budget ${budget} commands/s`);
    console.log("scanCount  wall_s  scans(baton/redis)  redis_cpu_s  usec/scan  slowest_scan_us  locks_found");

    let lastKeys: { key: string; pattern: string }[] = [];
    for (const scanCount of scanCounts) {
      const limiter = createCommandLimiter({ commandsPerSecond: budget });
      const source = createRedisLockSource(
        parseRedisClusterConfig({ kind: "redis", name: "bench", url: server.url, patterns: [{ match: "lock:*" }], scanCount }),
        limiter,
      );
      await admin.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
      await admin.call("SLOWLOG", "RESET");
      await admin.call("CONFIG", "RESETSTAT");
      const cpuBefore = await redisCpuSeconds(admin);
      const started = performance.now();
      const result = await source.discover();
      const wallSeconds = (performance.now() - started) / 1000;
      const cpuAfter = await redisCpuSeconds(admin);
      const scans = await commandStats(admin, "scan");
      const slowest = await slowestMicros(admin, "scan");
      await admin.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
      console.log(
        `${String(scanCount).padStart(9)}  ${wallSeconds.toFixed(2).padStart(6)}  ${`${limiter.takeRequestCount()}/${scans.calls}`.padStart(18)}  ${(cpuAfter - cpuBefore).toFixed(2).padStart(11)}  ${scans.usecPerCall.toFixed(0).padStart(9)}  ${String(slowest).padStart(15)}  ${result.keys.length}`,
      );
      if (result.keys.length !== lockCount) throw new Error(`discovery found ${result.keys.length} locks, expected ${lockCount}`);
      lastKeys = result.keys;
      await source.close();
    }

    // One observe(): a single pipeline of GET + PTTL per lock.
    const limiter = createCommandLimiter({ commandsPerSecond: budget });
    const source = createRedisLockSource(parseRedisClusterConfig({ kind: "redis", name: "bench", url: server.url, patterns: [{ match: "lock:*" }] }), limiter);
    await admin.call("CONFIG", "RESETSTAT");
    const cpuBefore = await redisCpuSeconds(admin);
    const started = performance.now();
    const observed = await source.observe(lastKeys);
    const wallMs = performance.now() - started;
    const cpuAfter = await redisCpuSeconds(admin);
    const gets = await commandStats(admin, "get");
    const pttls = await commandStats(admin, "pttl");
    console.log(
      `observe(): ${observed.observations.length} observations, ${observed.errors.length} errors, ${wallMs.toFixed(0)} ms, ` +
        `${limiter.takeRequestCount()} commands counted (Redis: ${gets.calls} GET + ${pttls.calls} PTTL), Redis CPU ${((cpuAfter - cpuBefore) * 1000).toFixed(0)} ms`,
    );
    await source.close();
  } finally {
    admin.disconnect();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
