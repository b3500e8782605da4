// Benchmark: what the Node exclusivity counter (lib/exclusivity-client) costs a consumer, the twin
// of bench:java-interceptor. N keyed messages (1,000 keys) are handled in memory on alternating
// passes: plain (the work alone), noop (withExclusivity over a counter that does nothing: the
// client's own cost), counted (withExclusivity over Redis, batched as it ships) and unbatched (the
// same script, one call per enter and per exit, as before batching). Each message costs
// --work-us µs of CPU (a busy-wait over its bytes), as a consumer's own processing does, and
// allocates --garbage-bytes of short-lived objects (default 0), as parsing a message would: each
// garbage collection that causes copies whatever the counter has in flight.
// Concurrency: the JVM interceptor hands each entry to a queue and lets the consumer go on; a Node
// handler awaits withExclusivity, so the consumer keeps --concurrency messages in flight, one per
// key at a time (keys split over that many lanes, each handling its messages in order), as a
// Key_Shared consumer or a Kafka consumer with concurrent partitions would.
// Target: counted throughput >= 90% of plain, with every key counted and nothing lost.
// Redis: a redis-server of its own on a free port (stopped at the end), or --redis-url.
// Run: npm run bench:counter [-- --count 100000 --keys 1000 --rounds 4 --work-us 20 --garbage-bytes 0 --concurrency 1000 --report violations+counts --passes plain,noop,counted,unbatched --redis-url redis://127.0.0.1:6379]
import { randomUUID } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { Redis } from "ioredis";

import {
  type CounterBackend,
  createExclusivityClient,
  createRedisCounter,
  INSIDE_KEY_SUFFIX,
  MAX_OTHERS_INSIDE,
  type RedisLike,
  type ReportingMode,
} from "@/lib/exclusivity-client";
import { BATCH_SCRIPT } from "@/lib/exclusivity-client/redis-counter";
import { startHttpServer } from "@/tests/support/http-server";
import { deleteKeysWithPrefix, startRedisServer } from "@/tests/support/redis-servers";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    keys: { type: "string", default: "1000" },
    rounds: { type: "string", default: "4" },
    "work-us": { type: "string", default: "20" },
    "garbage-bytes": { type: "string", default: "0" },
    concurrency: { type: "string", default: "1000" },
    report: { type: "string", default: "violations+counts" },
    passes: { type: "string", default: "plain,noop,counted,unbatched" },
    "redis-url": { type: "string" },
  },
});

const count = Number(values.count);
const keyCount = Number(values.keys);
const rounds = Number(values.rounds);
const workMicros = Number(values["work-us"]);
const garbageBytes = Number(values["garbage-bytes"]);
const lanes = Math.min(Number(values.concurrency), keyCount);
const report = values.report as ReportingMode;
const PASS_KINDS = ["plain", "noop", "counted", "unbatched"] as const;
type PassKind = (typeof PASS_KINDS)[number];
const passKinds = values.passes.split(",") as PassKind[];
for (const kind of passKinds) if (!PASS_KINDS.includes(kind)) throw new Error(`--passes: unknown pass ${kind} (known: ${PASS_KINDS.join(", ")})`);
if (!passKinds.includes("plain") || !passKinds.includes("counted")) throw new Error("--passes must include plain and counted");

type Message = { key: string; value: string };
type PassResult = {
  kind: PassKind;
  round: number;
  perSecond: number;
  seconds: number;
  nodeCpuSeconds: number;
  nodeSystemSeconds: number;
  /** Time the event loop waited with nothing to run (for Redis, here), seconds. */
  loopIdleSeconds: number;
  redisCpuSeconds: number;
  calls: number | null;
  stats: { increments: number; violations: number; counterErrors: number } | null;
  keysLeft: number | null;
};

/**
 * Busy for workMicros, hashing the message's bytes (the hash is returned so that the loop cannot
 * be dropped), as the JVM bench's work. The clock is read once per 16 passes over the bytes (under
 * a µs): in Node each read allocates a number, and reading it after every pass made the work
 * itself allocate about 4 KB a message, garbage collections that each copied whatever the counter
 * had in flight.
 */
let garbage: unknown[] = [];
function work(message: Message): number {
  // Kept until the next message's, so that the compiler cannot leave the allocation out.
  if (garbageBytes > 0) garbage = new Array(Math.ceil(garbageBytes / 8)).fill(message.value.length);
  const until = performance.now() + workMicros / 1_000;
  const value = message.value;
  let hash = 0;
  do {
    for (let pass = 0; pass < 16; pass++) {
      for (let i = 0; i < value.length; i++) hash = (31 * hash + value.charCodeAt(i)) | 0;
    }
  } while (performance.now() < until);
  return hash ^ garbage.length;
}

/** Each lane handles the messages of its keys in order; the lanes run concurrently. */
async function consume(messages: Message[][], handle: (message: Message) => Promise<number>): Promise<number> {
  const start = performance.now();
  await Promise.all(
    messages.map(async (lane) => {
      for (const message of lane) await handle(message);
    }),
  );
  return (performance.now() - start) / 1_000;
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  let seconds = 0;
  for (const line of info.split(/\r?\n/)) {
    if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) seconds += Number(line.slice(line.indexOf(":") + 1));
  }
  return seconds;
}

/** Script calls Redis has run so far (EVAL and EVALSHA), from its own statistics: the counter is handed the ioredis client itself. */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let calls = 0;
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_(?:eval|evalsha):calls=(\d+)/.exec(line);
    if (match) calls += Number(match[1]);
  }
  return calls;
}

/** One call per enter and per exit (the counter before batching), with the same script. */
function unbatchedCounter(redis: RedisLike, ttlMs: number): CounterBackend {
  return {
    async enter(key, entry) {
      const reply = await redis.eval(BATCH_SCRIPT, 1, key + INSIDE_KEY_SUFFIX, ttlMs, MAX_OTHERS_INSIDE, "enter", entry.entryId, entry.worker);
      const [entered] = reply as [[number, ...unknown[]]];
      return { othersCount: entered[0], others: [] };
    },
    async exit(key, entryId) {
      await redis.eval(BATCH_SCRIPT, 1, key + INSIDE_KEY_SUFFIX, ttlMs, MAX_OTHERS_INSIDE, "exit", entryId, "");
    },
  };
}

const noopCounter: CounterBackend = { enter: async () => ({ othersCount: 0, others: [] }), exit: async () => undefined };

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

async function main(): Promise<void> {
  const server = values["redis-url"] ? null : await startRedisServer();
  const redisUrl = values["redis-url"] ?? server!.url;
  const redis = new Redis(redisUrl);
  const probe = new Redis(redisUrl);
  // Stands in for Baton: takes every request and keeps nothing (the bench measures the counter).
  const baton = await startHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: 0, duplicates: 0, rejected: 0, errors: [] }));
    });
  });
  const runId = randomUUID().slice(0, 8);
  const messages: Message[][] = Array.from({ length: lanes }, () => []);
  for (let i = 0; i < count; i++) messages[(i % keyCount) % lanes]!.push({ key: `k-${i % keyCount}`, value: `m-${i}` });
  console.log(
    `${count} messages over ${keyCount} keys, ${lanes} in flight (one per key at a time), ${workMicros} µs of work each${garbageBytes > 0 ? ` (allocating ${garbageBytes} bytes)` : ""}, ${rounds} rounds of ${passKinds.join(", ")}; report ${report}; Redis ${redisUrl}${server ? " (its own redis-server)" : ""}; load average ${load()}`,
  );
  const results: PassResult[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const kind of passKinds) {
        const prefix = `baton-bench:${runId}:${kind}-${round}:`;
        const counter = kind === "counted" ? createRedisCounter(redis) : kind === "unbatched" ? unbatchedCounter(redis, 60_000) : noopCounter;
        const client =
          kind === "plain"
            ? null
            : createExclusivityClient({
                counter,
                keyPrefix: prefix,
                baton: { url: baton.url, token: "bat_bench" },
                service: "bench",
                worker: `bench-${round}`,
                report,
                onError: (error) => console.error(`  ${kind}-${round}: ${error.message}`),
              });
        const context = { subscription: "bench-sub", topic: "persistent://public/default/bench" };
        const handle = client
          ? (message: Message) => client.withExclusivity(message.key, () => work(message), context)
          : async (message: Message) => work(message);
        const callsBefore = await scriptCalls(probe);
        const loopBefore = performance.eventLoopUtilization();
        const cpuBefore = process.cpuUsage();
        const redisBefore = await redisCpuSeconds(probe);
        const seconds = await consume(messages, handle);
        await client?.close();
        const cpu = process.cpuUsage(cpuBefore);
        const loop = performance.eventLoopUtilization(loopBefore);
        const result: PassResult = {
          kind,
          round,
          perSecond: Math.round(count / seconds),
          seconds,
          nodeCpuSeconds: (cpu.user + cpu.system) / 1e6,
          nodeSystemSeconds: cpu.system / 1e6,
          loopIdleSeconds: loop.idle / 1_000,
          redisCpuSeconds: (await redisCpuSeconds(probe)) - redisBefore,
          calls: kind === "counted" || kind === "unbatched" ? (await scriptCalls(probe)) - callsBefore : null,
          stats: client ? client.stats() : null,
          keysLeft: kind === "counted" || kind === "unbatched" ? (await probe.keys(`${prefix}*`)).length : null,
        };
        results.push(result);
        const calls = result.calls === null ? "" : `; ${result.calls} script calls (${((2 * count) / result.calls).toFixed(1)} operations each)`;
        const stats = result.stats
          ? `; increments ${result.stats.increments}, violations ${result.stats.violations}, counter errors ${result.stats.counterErrors}`
          : "";
        const left = result.keysLeft === null ? "" : `, keys left ${result.keysLeft}`;
        console.log(
          `  ${`${kind}-${round}`.padEnd(12)} ${String(result.perSecond).padStart(7)} msg/s (${seconds.toFixed(2)} s); CPU: Node ${result.nodeCpuSeconds.toFixed(2)} s (system ${result.nodeSystemSeconds.toFixed(2)} s; loop idle ${result.loopIdleSeconds.toFixed(2)} s), Redis ${result.redisCpuSeconds.toFixed(2)} s${calls}${stats}${left}`,
        );
        if (result.keysLeft) await deleteKeysWithPrefix(probe, prefix);
      }
    }
    // Round 1 warms V8 up: the figures are the median over the later rounds.
    const measured = rounds > 1 ? results.filter((r) => r.round > 1) : results;
    const byKind = (kind: PassKind) => measured.filter((r) => r.kind === kind);
    const ratios = (kind: PassKind) =>
      byKind(kind).map((pass) => pass.perSecond / measured.find((r) => r.kind === "plain" && r.round === pass.round)!.perSecond);
    for (const kind of passKinds) {
      const passes = byKind(kind);
      const rates = passes.map((p) => p.perSecond);
      const ratio = kind === "plain" ? "" : `, ${percent(median(ratios(kind)))} of plain (median of ${ratios(kind).map(percent).join(", ")})`;
      console.log(`${kind.padEnd(10)} median ${Math.round(median(rates))} msg/s (${Math.min(...rates)}-${Math.max(...rates)})${ratio}`);
    }
    // Counting every key, nothing may be lost or wrong: every message counted, no violation
    // (one message per key at a time), every entry left.
    const counted = byKind("counted");
    const isAllCounted = counted.every((r) => r.stats!.increments === count && r.stats!.violations === 0 && r.stats!.counterErrors === 0 && r.keysLeft === 0);
    const ratio = median(ratios("counted"));
    const isMet = ratio >= 0.9 && isAllCounted;
    console.log(
      `Median (rounds ${[...new Set(measured.map((r) => r.round))].join(", ")}, ${workMicros} µs of work per message): throughput with the counter ${percent(ratio)} of without (target >= 90%, every message counted): ${isMet ? "met" : "NOT met"}${isAllCounted ? "" : " (some messages were not counted, or counted wrong)"}`,
    );
    console.log(`Load average at the end: ${load()}`);
  } finally {
    await baton.close();
    redis.disconnect();
    probe.disconnect();
    await server?.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
