// Benchmark: the Java interceptor's cost (clients/java). One broker, the machine's Redis and a
// real Baton ingest (route handlers on a throwaway PostgreSQL); the Java bench (the test kit's
// InterceptorBench) produces N keyed messages once and consumes them on alternating passes
// without an interceptor, with one that does nothing, and with BatonExclusivityInterceptor. Targets: throughput with >= 90% of without;
// added latency per message (the interceptor's hooks on the consumer's thread) p99 <= 1 ms.
// --work-us N spends N µs of CPU on each message between receive and acknowledge, as a consumer's
// own processing does (0: an empty loop, a few hundred nanoseconds a message).
// Run: npm run bench:java-interceptor [-- --count 100000 --keys 1000 --rounds 2 --report ALL --sample 1 --work-us 0]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { z } from "zod";

import { createApiToken } from "@/lib/auth/create-api-token";
import { createDb } from "@/lib/db/client";
import { startRouteServer } from "@/tests/bench/route-server";
import { ensureJavaClientBuilt, runJavaProgram } from "@/tests/support/java-exclusivity-worker";
import { startTestBroker } from "@/tests/support/pulsar";
import { startTestDatabase } from "@/tests/support/test-database";
import { createScratchNamespace } from "@/tools/pulsar/admin-setup";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    keys: { type: "string", default: "1000" },
    rounds: { type: "string", default: "2" },
    report: { type: "string", default: "ALL" },
    sample: { type: "string", default: "1" },
    "work-us": { type: "string", default: "0" },
  },
});

const percentilesSchema = z.object({ p50: z.number(), p99: z.number(), p999: z.number(), max: z.number() });
const resultSchema = z.object({
  subscription: z.string(),
  messages: z.number(),
  seconds: z.number(),
  perSecond: z.number(),
  ackMicros: percentilesSchema,
  hookMicros: percentilesSchema.optional(),
  jvmCpuSeconds: z.number(),
  redisCpuSeconds: z.number(),
});
const statsLineSchema = z.object({
  subscription: z.string(),
  flushed: z.boolean(),
  stats: z.object({ entered: z.number(), notCounted: z.number(), notSampled: z.number() }).passthrough(),
});
type PassResult = z.output<typeof resultSchema>;

function linesOf(stdout: string, kind: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => line.slice(kind.length + 1));
}

function describePass(pass: PassResult): string {
  const hooks = pass.hookMicros
    ? `; hooks p50 ${pass.hookMicros.p50} µs, p99 ${pass.hookMicros.p99} µs, p99.9 ${pass.hookMicros.p999} µs, max ${pass.hookMicros.max} µs`
    : "";
  const cpu = `; CPU ${pass.subscription.startsWith("counted") ? "until flushed" : "of the pass"}: JVM ${pass.jvmCpuSeconds.toFixed(2)} s, Redis ${pass.redisCpuSeconds.toFixed(2)} s`;
  return `${pass.subscription.padEnd(10)} ${String(pass.perSecond).padStart(7)} msg/s (${pass.seconds.toFixed(2)} s); receive->ack p50 ${pass.ackMicros.p50} µs, p99 ${pass.ackMicros.p99} µs${hooks}${cpu}`;
}

async function main(): Promise<void> {
  console.log("Building the Java client...");
  await ensureJavaClientBuilt({ log: (line) => console.log(line) });
  const database = await startTestDatabase();
  process.env.DATABASE_URL = database.url;
  // The route handlers read DATABASE_URL on first use: imported after it is set.
  const { POST: postEvents } = await import("@/app/api/v1/exclusivity-events/route");
  const { POST: postCounts } = await import("@/app/api/v1/exclusivity-counts/route");
  const db = createDb(database.url);
  const broker = await startTestBroker({ log: (line) => console.log(line) });
  const baton = await startRouteServer({ "POST /api/v1/exclusivity-events": postEvents, "POST /api/v1/exclusivity-counts": postCounts });
  try {
    const namespace = await createScratchNamespace(broker.adminUrl, "bench-java");
    const token = (await createApiToken(db, `bench-java-${randomUUID().slice(0, 8)}`)).token;
    const service = `bench-${randomUUID()}`;
    console.log(
      `Consuming ${values.count} messages over ${values.keys} keys, ${values.rounds} rounds (report ${values.report}, key sample rate ${values.sample}, ${values["work-us"]} µs of work per message); Redis 127.0.0.1:6379`,
    );
    const run = await runJavaProgram(
      "InterceptorBench",
      {
        serviceUrl: broker.serviceUrl,
        topic: namespace.topic("bench"),
        count: values.count,
        keys: values.keys,
        rounds: values.rounds,
        batonUrl: baton.url,
        token,
        keyPrefix: `baton-bench:${service}:`,
        service,
        report: values.report,
        keySampleRate: values.sample,
        workMicros: values["work-us"],
      },
      { javaOptions: ["-Xmx1g"] },
    );
    if (run.code !== 0) throw new Error(`InterceptorBench failed (${run.code}): ${run.stderr.slice(-3_000)}`);
    for (const line of linesOf(run.stdout, "produced")) console.log(`produced ${line}`);
    const passes = linesOf(run.stdout, "result").map((line) => resultSchema.parse(JSON.parse(line)));
    for (const pass of passes) console.log(`  ${describePass(pass)}`);
    const statsLines = linesOf(run.stdout, "stats").map((line) => statsLineSchema.parse(JSON.parse(line)));
    for (const line of linesOf(run.stdout, "stats")) console.log(`  stats ${line}`);
    const stored = await db.exclusivityEvent.count({ where: { service } });
    console.log(`  events stored in Baton for the service: ${stored}`);
    // Round 1 warms the JIT (its plain pass is often a third of the later ones): the figures are
    // the median over the later rounds, each round's passes run back to back.
    const rounds = Array.from({ length: Number(values.rounds) }, (_, i) => i + 1).filter((round) => round > 1 || Number(values.rounds) === 1);
    const byRound = rounds.map((round) => {
      const pass = (kind: string) => passes.find((p) => p.subscription === `${kind}-${round}`)!;
      const stats = statsLines.find((line) => line.subscription === `counted-${round}`)!.stats;
      return { round, plain: pass("plain"), noop: pass("noop"), counted: pass("counted"), stats };
    });
    const median = (numbers: number[]) => {
      const sorted = [...numbers].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    };
    const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
    for (const { round, plain, noop, counted } of byRound) {
      console.log(
        `Round ${round}: with the interceptor ${percent(counted.perSecond / plain.perSecond)} of without; a do-nothing interceptor ${percent(noop.perSecond / plain.perSecond)}`,
      );
    }
    const ratio = median(byRound.map(({ plain, counted }) => counted.perSecond / plain.perSecond));
    // A counter that fell behind refuses operations (counted in notCounted) rather than slow the
    // consumer: its throughput is then bought with lost counts, and the target is not met.
    const notCounted = byRound.reduce((sum, { stats }) => sum + stats.notCounted, 0);
    const lost = notCounted > 0 ? ` (but ${notCounted} entries or exits were not counted: the counter fell behind)` : "";
    const isMet = ratio >= 0.9 && notCounted === 0;
    const where = `rounds ${rounds.join(", ")}, ${values["work-us"]} µs of work per message`;
    console.log(
      `Median (${where}): throughput with the interceptor ${percent(ratio)} of without (target >= 90%, nothing lost): ${isMet ? "met" : "NOT met"}${lost}`,
    );
    const hookP99Ms = median(byRound.map(({ counted }) => counted.hookMicros!.p99)) / 1_000;
    console.log(`Median (${where}): added latency per message p99 ${hookP99Ms.toFixed(3)} ms (target <= 1 ms): ${hookP99Ms <= 1 ? "met" : "NOT met"}`);
    await namespace.cleanup();
  } finally {
    await baton.close();
    await broker.stop();
    await db.$disconnect();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
