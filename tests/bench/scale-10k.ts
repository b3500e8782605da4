// Benchmark: 10,000 partition-subscriptions on one real broker, polled by the real worker at 50
// requests/s, with the consumer change signal off and on in the same run (same broker, same
// consumers, a fresh cluster row per phase). Prints per phase: the full cycle against its
// request-budget bound, detection latency of killed active consumers, worker and broker CPU/RSS,
// and database rows written per cycle next to the changes and the resources; and, once, what a
// /metrics/ scrape costs. Run: npm run bench:scale [-- --topics 1000 --partitions 10 --kills 20
// --phases off,on --warmup-minutes 0]. `--phases today` runs the signal-free configuration of the code before the
// signal existed (no consumerSignal field). Timed phases hold /tmp/baton-bench.lock.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { sql } from "@/lib/db/sql";
import { createFleetConsumer, type FleetConsumer } from "@/tools/fleet/fleet-consumer";
import { workerEnv } from "@/tools/build-worker.mjs";
import { findFreePort } from "@/tools/free-port";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import { startBroker } from "@/tools/pulsar/broker";
import { processCpuSeconds } from "@/tests/bench/cpu-usage";
import { createTestDb } from "@/tests/support/poller-harness";
import { startTestDatabase } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";

const { values } = parseArgs({
  options: {
    topics: { type: "string", default: "1000" },
    partitions: { type: "string", default: "10" },
    kills: { type: "string", default: "20" },
    rps: { type: "string", default: "50" },
    phases: { type: "string", default: "off,on" },
    "kill-spacing-ms": { type: "string", default: "2000" },
    /**
     * Minutes the worker runs before the measured window, after its first three sweeps: a state
     * keeps backlog samples over minutes (up to MAX_RECENT_SAMPLES), so 12 gives the memory of a
     * worker that has run for a while rather than of one just started.
     */
    "warmup-minutes": { type: "string", default: "0" },
    "scrape-interval-ms": { type: "string", default: "1000" },
    "heap-mb": { type: "string", default: "3072" },
    /**
     * "pulsar": the JVM flags a Pulsar broker runs with (conf/pulsar_env.sh: ZGC, every JIT tier),
     * which is what a scrape costs in production; "test": the test broker's C1-only JIT and serial
     * collector (quick to start, slower to render /metrics/).
     */
    "broker-jvm": { type: "string", default: "pulsar" },
    /** Node options for the worker process, space-separated (e.g. "--heap-growing-percent=25"); given as --worker-node-options=.... */
    "worker-node-options": { type: "string", default: "" },
    /** Skip the scrape measurement (for `--phases today` on code that has no scraper). */
    "no-scrape": { type: "boolean", default: false },
  },
});
const TOPICS = Number(values.topics);
const PARTITIONS = Number(values.partitions);
const KILLS = Number(values.kills);
const RPS = Number(values.rps);
const PHASES = values.phases!.split(",") as ("today" | "off" | "on")[];
const KILL_SPACING_MS = Number(values["kill-spacing-ms"]);
const WARMUP_MS = Number(values["warmup-minutes"]) * 60_000;
const SCRAPE_INTERVAL_MS = Number(values["scrape-interval-ms"]);
const SUBSCRIPTION = "workers";
const BOUND_MS = (TOPICS / RPS) * 1000;
// PostgreSQL flushes a backend's table counters at most every 10 s when it goes idle.
const STATS_FLUSH_MS = 11_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Proportional set size: ZGC maps its heap at several addresses, and RSS counts each mapping of
 * a page; PSS counts a page once (divided among the processes that map it).
 */
function pssMb(pid: number): number {
  const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Runs `work` with at most `limit` at a time. */
async function inBatches<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

/** Holds the shared benchmark lock (flock on /tmp/baton-bench.lock) until release() is called. */
async function holdBenchLock(): Promise<{ release(): void }> {
  // The shell itself holds the lock (fd 9) and becomes the sleep: killing it releases the lock.
  const child = spawn("sh", ["-c", "exec 9>>/tmp/baton-bench.lock && flock 9 && echo locked && exec sleep 100000"], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (data: Buffer) => data.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`flock exited with ${code}`)));
  });
  return { release: () => child.kill("SIGTERM") };
}

/** The worker's own memory figures from its /metrics (prom-client's process and Node.js metrics), in MB. */
async function readWorkerMemory(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const figures: Record<string, number> = {};
  for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_total_bytes", "nodejs_heap_size_used_bytes", "nodejs_external_memory_bytes"]) {
    const match = new RegExp(`^${name} ([0-9.e+]+)`, "m").exec(text);
    if (match) figures[name.replace(/_bytes$/, "")] = Number(match[1]) / 1024 / 1024;
  }
  return figures;
}

/** Samples the worker's memory figures every 2 s; keeps the sample taken at the highest RSS. */
function watchWorkerMemory(metricsPort: number): { stop(): Record<string, number> } {
  let atPeak: Record<string, number> = {};
  const sample = () =>
    readWorkerMemory(metricsPort).then(
      (figures) => (atPeak = (figures.process_resident_memory ?? 0) >= (atPeak.process_resident_memory ?? 0) ? figures : atPeak),
      () => {},
    );
  void sample();
  const timer = setInterval(sample, 2000);
  return {
    stop() {
      clearInterval(timer);
      return atPeak;
    },
  };
}

/** Samples a process's RSS every second; the peak and the CPU share over the window. */
function watchProcess(pid: number): { stop(): { cpuPercent: number; peakRssMb: number; peakPssMb: number; seconds: number } } {
  const startCpu = processCpuSeconds(pid);
  const started = performance.now();
  let peak = rssMb(pid);
  let peakPss = pssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
    peakPss = Math.max(peakPss, pssMb(pid));
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      return {
        cpuPercent: ((processCpuSeconds(pid) - startCpu) / seconds) * 100,
        peakRssMb: Math.max(peak, rssMb(pid)),
        peakPssMb: Math.max(peakPss, pssMb(pid)),
        seconds,
      };
    },
  };
}

type Db = ReturnType<typeof createTestDb>;

async function rowsWritten(db: Db): Promise<{ total: number; byTable: Map<string, number> }> {
  const rows = await db.$queryRaw<{ relname: string; n: bigint }[]>(sql`select relname, (n_tup_ins + n_tup_upd)::bigint as n from pg_stat_user_tables`);
  return { total: rows.reduce((sum, r) => sum + Number(r.n), 0), byTable: new Map(rows.map((r) => [r.relname, Number(r.n)])) };
}

async function cycles(db: Db, clusterId: number): Promise<{ id: bigint; cycleMs: number | null; finishedAt: Date; changeCount: number }[]> {
  return db.pollRun.findMany({ where: { clusterId }, orderBy: { id: "asc" }, select: { id: true, cycleMs: true, finishedAt: true, changeCount: true } });
}

async function waitForCycles(db: Db, clusterId: number, count: number, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    if ((await cycles(db, clusterId)).length >= count) return;
    if (i > 3_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Waits until the last saved cycle is STATS_FLUSH_MS old (its rows are counted), before the next one. */
async function waitForCountedCycle(db: Db, clusterId: number, after: number): Promise<number> {
  await waitForCycles(db, clusterId, after + 1, "the next cycle");
  const runs = await cycles(db, clusterId);
  await sleep(runs.at(-1)!.finishedAt.getTime() + STATS_FLUSH_MS - Date.now());
  return (await cycles(db, clusterId)).length;
}

/** Bytes of one answer as they cross the wire, in the given encoding. */
function readWireBytes(url: string, encoding: "gzip" | "identity"): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "accept-encoding": encoding } }, (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () => resolve(bytes));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

/** What GET /metrics/ costs: bytes, duration, and the broker's CPU per scrape over its idle rate. */
async function measureScrapes(adminUrl: string, brokerPid: number): Promise<void> {
  const { scrapeConsumerMetrics } = await import("@/lib/sources/pulsar/consumer-signal/scrape-consumer-metrics");
  const lock = await holdBenchLock();
  try {
    const idle = watchProcess(brokerPid);
    await sleep(10_000);
    const idleCpu = idle.stop();
    const SCRAPES = 10;
    const scrapeWatch = watchProcess(brokerPid);
    const scrapes = [];
    for (let i = 0; i < SCRAPES; i++) scrapes.push(await scrapeConsumerMetrics({ adminUrl, requestTimeoutMs: 30_000 }, adminUrl, 30_000));
    const during = scrapeWatch.stop();
    const brokerCpuMsPerScrape = (((during.cpuPercent - idleCpu.cpuPercent) / 100) * during.seconds * 1000) / SCRAPES;
    const last = scrapes.at(-1)!;
    const durations = scrapes.map((s) => s.durationMs).sort((a, b) => a - b);
    console.log(
      `scrape (Baton's scraper: uncompressed, parsed as it streams, up to the first whole consumer-level family): GET /metrics/ ${fmt(last.bytes / 1024)} KB read, ${last.consumerSeriesCount} consumer series; duration p50 ${fmt(percentile(durations, 50))} ms, max ${fmt(durations.at(-1)!)} ms (read and parsed streaming by Baton's scraper); broker CPU ${fmt(brokerCpuMsPerScrape)} ms per scrape (idle broker ${fmt(idleCpu.cpuPercent, 1)}% of a core over 10 s) [load ${load()}]`,
    );
    // Raw reads, not parsed: what each encoding puts on the wire and costs the broker.
    for (const encoding of ["gzip", "identity"] as const) {
      const watch = watchProcess(brokerPid);
      const sizes: number[] = [];
      for (let i = 0; i < SCRAPES; i++) sizes.push(await readWireBytes(`${adminUrl}/metrics/`, encoding));
      const used = watch.stop();
      const cpuMs = (((used.cpuPercent - idleCpu.cpuPercent) / 100) * used.seconds * 1000) / SCRAPES;
      console.log(
        `scrape (raw read, ${encoding}): ${fmt(sizes.at(-1)! / 1024)} KB on the wire, ${fmt((used.seconds * 1000) / SCRAPES)} ms each, broker CPU ${fmt(cpuMs)} ms per scrape [load ${load()}]`,
      );
    }
  } finally {
    lock.release();
  }
}

async function main(): Promise<void> {
  console.log(
    `scale bench: ${TOPICS} topics x ${PARTITIONS} partitions, Failover subscription with 2 WebSocket consumers each, ${RPS} requests/s; phases ${PHASES.join(", ")}`,
  );
  const database = await startTestDatabase();
  const heapMb = Number(values["heap-mb"]);
  const brokerConfig = {
    exposeConsumerLevelMetricsInPrometheus: true,
    // Every WebSocket session is an HTTP request Jetty counts until it closes.
    maxConcurrentHttpRequests: 20_000,
  };
  if (!["pulsar", "test"].includes(values["broker-jvm"]!)) throw new Error(`--broker-jvm: "pulsar" or "test", not "${values["broker-jvm"]}"`);
  // Later flags win: these undo the test broker's -XX:TieredStopAtLevel=1 and -XX:+UseSerialGC.
  const extraJvmArgs = values["broker-jvm"] === "pulsar" ? ["-XX:TieredStopAtLevel=4", "-XX:-UseSerialGC", "-XX:+UseZGC"] : [];
  const broker = await startBroker({
    keepData: false,
    maxHeapMb: heapMb,
    maxDirectMemoryMb: 1024,
    brokerConfig,
    extraJvmArgs,
    log: (line) => console.log(line),
    startTimeoutMs: 300_000,
  });
  console.log(
    `broker: Pulsar ${broker.version}, -Xmx${heapMb}m, MaxDirectMemorySize 1024m, JVM ${values["broker-jvm"] === "pulsar" ? "as Pulsar runs it (ZGC, C1 and C2)" : "as the test broker (C1 only, serial GC)"}, --conf ${Object.entries(
      brokerConfig,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  const db = createTestDb(database.url);
  const consumers: FleetConsumer[][] = [];
  const workers: ChildProcess[] = [];
  try {
    const setupStart = performance.now();
    const scratch = await createScratchNamespace(broker.adminUrl, "scale");
    const topics = Array.from({ length: TOPICS }, (_, i) => scratch.topic(`t${String(i).padStart(5, "0")}`));
    await inBatches(topics, 8, (topic) => createPartitionedTopic(broker.adminUrl, topic, PARTITIONS));
    console.log(`setup: ${TOPICS} partitioned topics created in ${fmt((performance.now() - setupStart) / 1000, 1)} s`);
    const consumerStart = performance.now();
    for (const topic of topics) {
      const name = topic.slice(topic.lastIndexOf("/") + 1);
      consumers.push(
        ["a", "b"].map((suffix) =>
          createFleetConsumer({ wsUrl: broker.wsUrl }, { name: `${name}-${suffix}`, topic, subscription: SUBSCRIPTION, subscriptionType: "Failover" }),
        ),
      );
    }
    let opened = 0;
    await inBatches(consumers.flat(), 8, async (consumer) => {
      // A partition's first subscription creates its ledgers, and the namespace's first one makes
      // the broker load every topic of its bundle (all 10,000 partitions, seen taking over 50 s on
      // a fresh 2-core box): an open can take longer than the client's 10 s; try again, for up to
      // about 5 minutes.
      for (let attempt = 1; ; attempt++) {
        try {
          await consumer.start();
          break;
        } catch (error) {
          if (attempt >= 30) throw error;
        }
      }
      if (++opened % 200 === 0)
        console.log(`setup: ${opened} consumers open (${fmt((performance.now() - consumerStart) / 1000, 0)} s, broker RSS ${fmt(rssMb(broker.pid))} MB)`);
    });
    const resources = TOPICS * PARTITIONS;
    console.log(
      `setup: ${opened} consumers (${resources} partition-subscriptions, ${opened * PARTITIONS} broker-side consumers) open in ${fmt((performance.now() - consumerStart) / 1000, 1)} s; broker RSS ${fmt(rssMb(broker.pid))} MB, PSS ${fmt(pssMb(broker.pid))} MB`,
    );

    // What one scrape of /metrics/ costs the broker, before any worker runs.
    if (!values["no-scrape"]) await measureScrapes(broker.adminUrl, broker.pid);

    let killOffset = 0;
    const summaries: string[] = [];
    for (const phase of PHASES) {
      const clusterName = `scale-${phase}`;
      const cluster: Record<string, unknown> = {
        name: clusterName,
        adminUrl: broker.adminUrl,
        scope: { namespaces: [scratch.namespace] },
        // Shorter than any cycle: sweeps follow each other, bound by the budget alone.
        pollIntervalMs: 1000,
        discoveryIntervalMs: 3_600_000,
        requestsPerSecond: RPS,
        maxConcurrency: 4,
        requestTimeoutMs: 30_000,
      };
      if (phase !== "today") Object.assign(cluster, { consumerSignal: phase === "on" ? "auto" : "off", consumerSignalIntervalMs: SCRAPE_INTERVAL_MS });
      const logFile = path.join(tmpdir(), `baton-scale-worker-${phase}.log`);
      const metricsPort = await findFreePort();
      const nodeOptions = values["worker-node-options"]!.split(" ").filter(Boolean);
      const worker = spawn(process.execPath, [...nodeOptions, ...(await workerNodeArgs())], {
        env: workerEnv({
          ...process.env,
          DATABASE_URL: database.url,
          BATON_CLUSTERS: JSON.stringify([cluster]),
          BATON_WORKER_METRICS_PORT: String(metricsPort),
        }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      workers.push(worker);
      const logStream = createWriteStream(logFile);
      worker.stdout!.pipe(logStream);
      worker.stderr!.pipe(logStream);
      let clusterId: number | undefined;
      for (let i = 0; clusterId === undefined; i++) {
        clusterId = (await db.cluster.findUnique({ where: { name: clusterName }, select: { id: true } }))?.id;
        if (i > 600) throw new Error(`the worker did not register ${clusterName} (log: ${logFile})`);
        await sleep(100);
      }
      // The first sweep inserts every row; the second is the first ordinary one.
      await waitForCycles(db, clusterId, 3, "three sweeps");
      if (WARMUP_MS > 0) {
        console.log(`  warm-up: the worker runs ${fmt(WARMUP_MS / 60_000)} min before the measured window (RSS now ${fmt(rssMb(worker.pid!))} MB)`);
        await sleep(WARMUP_MS);
        console.log(`  warm-up done: RSS ${fmt(rssMb(worker.pid!))} MB`);
      }
      const phaseLock = await holdBenchLock();
      try {
        // Quiet: nothing changes; what a cycle writes when nothing changed.
        const quietFrom = await waitForCountedCycle(db, clusterId, (await cycles(db, clusterId)).length);
        const quietRows0 = await rowsWritten(db);
        const workerWatch = watchProcess(worker.pid!);
        const workerMemoryWatch = watchWorkerMemory(metricsPort);
        const brokerWatch = watchProcess(broker.pid);
        // Three cycles: a busy resource's moving figures are flushed about every third cycle.
        const quietTo = await waitForCountedCycle(db, clusterId, quietFrom + 2);
        const quietRows1 = await rowsWritten(db);
        const quietRuns = (await cycles(db, clusterId)).slice(quietFrom, quietTo);
        const quietChanges = quietRuns.reduce((sum, r) => sum + r.changeCount, 0);

        // Kills: the active consumer of partition 0 ("-a") of KILLS different topics, spread out.
        const killRows0 = await rowsWritten(db);
        const killFromCycle = (await cycles(db, clusterId)).length;
        const changesBefore = await db.holderChange.count({ where: { clusterId } });
        const lastId = (await db.holderChange.findFirst({ where: { clusterId }, orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0n;
        const killedAt = new Map<string, number>();
        const detectedAt = new Map<string, number>();
        const killing = (async () => {
          for (let k = 0; k < KILLS; k++) {
            const index = (killOffset + k * Math.floor(TOPICS / KILLS / PHASES.length + 1)) % TOPICS;
            await sleep(Math.random() * KILL_SPACING_MS);
            killedAt.set(topics[index]!, Date.now());
            await consumers[index]![0]!.kill();
            await sleep(KILL_SPACING_MS / 2);
          }
        })();
        const deadline = Date.now() + KILLS * KILL_SPACING_MS * 2 + BOUND_MS * 3 + 30_000;
        while (Date.now() < deadline && (detectedAt.size < KILLS || killedAt.size < KILLS)) {
          const rows = await db.$queryRaw<{ topic: string; at: Date }[]>(sql`
            select r.topic, min(c.detected_at) as at from holder_change c join held_resource r on r.id = c.resource_id
            where c.cluster_id = ${clusterId} and c.id > ${lastId} and c.kind = 'HOLDER_CHANGED' and r.partition = 0 group by r.topic`);
          for (const row of rows) if (killedAt.has(row.topic) && !detectedAt.has(row.topic)) detectedAt.set(row.topic, row.at.getTime());
          await sleep(100);
        }
        await killing;
        const killTo = await waitForCountedCycle(db, clusterId, (await cycles(db, clusterId)).length);
        const killRows1 = await rowsWritten(db);
        const workerFigures = workerWatch.stop();
        const workerMemory = workerMemoryWatch.stop();
        const brokerFigures = brokerWatch.stop();
        const killRuns = (await cycles(db, clusterId)).slice(killFromCycle, killTo);
        const killChanges = (await db.holderChange.count({ where: { clusterId } })) - changesBefore;
        const cycleMsAll = [...quietRuns, ...killRuns].flatMap((r) => (r.cycleMs === null ? [] : [r.cycleMs])).sort((a, b) => a - b);
        const latencies = [...detectedAt].map(([topic, at]) => at - killedAt.get(topic)!).sort((a, b) => a - b);
        const status = (await db.cluster.findUnique({ where: { id: clusterId }, select: { changeSignal: true } }).catch(() => null))?.changeSignal as
          | { mode?: string; repollCount?: number; brokers?: { bytes: number | null; durationMs: number | null }[] }
          | null
          | undefined;
        const lines = [
          `phase ${phase} (consumer signal ${phase === "on" ? `on, scrape every ${SCRAPE_INTERVAL_MS} ms` : "off"}):`,
          `  full cycle: p50 ${fmt(percentile(cycleMsAll, 50))} ms, max ${fmt(cycleMsAll.at(-1) ?? Number.NaN)} ms over ${cycleMsAll.length} cycles; request-budget bound ${fmt(BOUND_MS)} ms (${TOPICS} topics / ${RPS} per s): ${fmt(percentile(cycleMsAll, 50) / BOUND_MS, 2)}x`,
          `  detection of ${KILLS} killed active consumers (kill -> change row committed): p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms, max ${fmt(latencies.at(-1) ?? Number.NaN)} ms; ${latencies.length}/${KILLS} detected`,
          `  worker (the real worker, built as npm start runs it): CPU ${fmt(workerFigures.cpuPercent, 1)}% of a core over ${fmt(workerFigures.seconds)} s, peak RSS ${fmt(workerFigures.peakRssMb)} MB${nodeOptions.length > 0 ? ` (node ${nodeOptions.join(" ")})` : ""}`,
          `  worker memory at its highest sampled RSS (its /metrics, MB): ${Object.entries(workerMemory)
            .map(([name, mb]) => `${name} ${fmt(mb)}`)
            .join(", ")}`,
          `  broker: CPU ${fmt(brokerFigures.cpuPercent, 1)}% of a core, peak RSS ${fmt(brokerFigures.peakRssMb)} MB, peak PSS ${fmt(brokerFigures.peakPssMb)} MB`,
          `  rows written (pg_stat_user_tables n_tup_ins + n_tup_upd, all tables), quiet: ${fmt((quietRows1.total - quietRows0.total) / Math.max(1, quietRuns.length))} per cycle over ${quietRuns.length} cycles with ${quietChanges} changes; ${resources} resources`,
          `  rows written with kills: ${fmt(killRows1.total - killRows0.total)} over ${killRuns.length} cycles (${fmt((killRows1.total - killRows0.total) / Math.max(1, killRuns.length))} per cycle) for ${killChanges} change rows; ${resources} resources`,
          `  held_resource rows written: quiet ${fmt(((quietRows1.byTable.get("held_resource") ?? 0) - (quietRows0.byTable.get("held_resource") ?? 0)) / Math.max(1, quietRuns.length))} per cycle; with kills ${fmt(((killRows1.byTable.get("held_resource") ?? 0) - (killRows0.byTable.get("held_resource") ?? 0)) / Math.max(1, killRuns.length))} per cycle`,
          ...(status && phase === "on"
            ? [
                `  signal status: ${status.mode}, ${status.repollCount ?? 0} topics re-polled, last scrape ${fmt((status.brokers?.[0]?.bytes ?? 0) / 1024)} KB in ${status.brokers?.[0]?.durationMs ?? "?"} ms`,
              ]
            : []),
          `  [load ${load()}]`,
        ];
        for (const line of lines) console.log(line);
        summaries.push(...lines);
        console.log(`  each detection, ms: ${latencies.join(" ")}`);
        if (latencies.length < KILLS) console.log(`  missed: ${[...killedAt.keys()].filter((t) => !detectedAt.has(t)).join(", ")}`);
      } finally {
        phaseLock.release();
      }
      worker.kill("SIGTERM");
      await new Promise((resolve) => worker.once("exit", resolve));
      // The killed consumers come back before the next phase.
      for (const index of new Set(Array.from({ length: KILLS }, (_, k) => (killOffset + k * Math.floor(TOPICS / KILLS / PHASES.length + 1)) % TOPICS)))
        await consumers[index]![0]!.start();
      killOffset += 1;
    }
    console.log("\nsummary:");
    for (const line of summaries) console.log(line);
  } finally {
    for (const worker of workers) if (worker.exitCode === null) worker.kill("SIGKILL");
    await Promise.all(consumers.flat().map((c) => c.kill().catch(() => {})));
    await db.$disconnect();
    await broker.stop();
    await database.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
