// `npm run bench:ingest [-- --seconds 15 --clients 4 --copy-seconds 6 --database-url URL --stored-database-url URL --cpu-prof-dir DIR --statements]`
//
// --database-url: run against a database of an existing server (created empty and migrated, and
// dropped after) instead of a throwaway embedded PostgreSQL. --stored-database-url: a store
// loaded by `npm run bench:event-store-load` (100 million events, say) on the same server: after
// the empty store's phases, phase 1 and the COPY run again against it, in the same run, and the
// ratio of the two ingest rates is printed. --statements: the throwaway PostgreSQL loads
// pg_stat_statements, and the statements of phase 1 are printed by total time (docs/ingest.md).
//
// Sustained ingest through the HTTP API against a throwaway PostgreSQL, next to a raw COPY of
// the same kind of rows into the same table in the same run:
//   1. warm-up (not counted), then N seconds of 1,000-event batches from several clients;
//   2. COPY ... FROM STDIN of fresh rows from the same generator into exclusivity_event, for
//      about --copy-seconds on one connection (the classic raw COPY), then on as many
//      connections as there are clients (the stricter baseline on a multi-core machine);
//   3. N seconds of 1,000-event batches of which half are ids already written.
// Prints events/s, the COPY rate, their ratio and batch latency percentiles.
//
// Server: the real route handler (app/api/v1/exclusivity-events/route.ts) behind a minimal
// node:http server in its own process (tests/bench/serve-ingest.ts), which hands it a web
// Request as Next's server does. Not `next start`: that needs a `next build` of the whole tree
// (minutes of CPU on this machine, and it fails whenever any page does), while what Next adds
// is a cost per request (routing, one Request/Response conversion), small next to a
// 1,000-event batch, which takes hundreds of milliseconds here.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import pg from "pg";

import { createApiToken } from "@/lib/auth/create-api-token";
import { createDb } from "@/lib/db/client";
import { copyFromStdin } from "@/lib/db/copy-from-stdin";
import { parentPid, processCpuSeconds, processTreeCpuSeconds } from "@/tests/bench/cpu-usage";
import { COPY_COLUMNS, makeBenchEvent, nextEventNumber, toCopyLine, toJson } from "@/tests/bench/event-generator";
import { findFreePort } from "@/tools/free-port";
import { applyMigrations } from "@/lib/db/migrate";
import { assertLocalDatabaseUrl, createScratchDatabase, startTestDatabase } from "@/tests/support/test-database";

const root = process.cwd();
const BATCH_SIZE = 1_000;
// Batches are built before a phase (building them during it would take CPU from the server on
// a 2-core machine), enough for this rate; a faster run ends the phase early, and its rate is
// still events over the time taken.
const MAX_EXPECTED_RATE = 100_000;
const WARM_UP_SECONDS = 3;

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    clients: { type: "string", default: "4" },
    "copy-seconds": { type: "string", default: "6" },
    "database-url": { type: "string" },
    "stored-database-url": { type: "string" },
    "cpu-prof-dir": { type: "string" },
    statements: { type: "boolean", default: false },
  },
});
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const COPY_SECONDS = Number(args["copy-seconds"]);
const COPY_STATEMENT_ROWS = 10_000;

const benchStarted = performance.now();
const log = (line: string) => console.log(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(3)} s] ${line}`);

/** CPU seconds of the server, PostgreSQL and this load generator, between two readings. */
type CpuMeter = { read(): { server: number; postgres: number; client: number } };

function createCpuMeter(serverPid: number, postmasterPid: number): CpuMeter {
  return {
    read: () => ({
      server: processCpuSeconds(serverPid),
      postgres: processTreeCpuSeconds(postmasterPid),
      client: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    }),
  };
}

function describeCpu(before: ReturnType<CpuMeter["read"]>, after: ReturnType<CpuMeter["read"]>, events: number): string {
  const per1000 = (seconds: number) => `${((seconds * 1000 * 1000) / events).toFixed(0)} ms`;
  return `CPU per 1,000 events: server ${per1000(after.server - before.server)}, PostgreSQL ${per1000(after.postgres - before.postgres)}, load generator ${per1000(after.client - before.client)}`;
}

type PhaseResult = { seconds: number; batches: number; accepted: number; duplicates: number; rejected: number; failures: number; latenciesMs: number[] };

/** A request body of 1,000 events, by event number. */
function makeBody(eventNumbers: number[]): string {
  return `[${eventNumbers.map((n) => toJson(makeBenchEvent(n))).join(",")}]`;
}

/** `count` bodies of new events, numbered consecutively from the returned `first`. */
function makeBodies(count: number): { first: number; bodies: string[] } {
  const bodies: string[] = [];
  let first = -1;
  for (let b = 0; b < count; b++) {
    const numbers = Array.from({ length: BATCH_SIZE }, () => nextEventNumber());
    if (b === 0) first = numbers[0]!;
    bodies.push(makeBody(numbers));
  }
  return { first, bodies };
}

/**
 * Bodies of which half the events are new and half repeat events already sent (same ids),
 * drawn from all of [sentFrom, sentTo): the pessimistic case (a client's retry re-sends recent
 * ids, whose index and heap pages are still in memory; these may be anywhere).
 */
function makeHalfDuplicateBodies(count: number, sentFrom: number, sentTo: number): string[] {
  return Array.from({ length: count }, () => {
    const fresh = Array.from({ length: BATCH_SIZE / 2 }, () => nextEventNumber());
    const again = Array.from({ length: BATCH_SIZE / 2 }, () => sentFrom + Math.floor(Math.random() * (sentTo - sentFrom)));
    return makeBody([...fresh, ...again]);
  });
}

function post(agent: http.Agent, url: URL, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** CLIENTS closed-loop clients, each sending the next batch as soon as its last one is answered. */
async function runPhase(baseUrl: string, token: string, bodies: string[], seconds: number): Promise<PhaseResult> {
  const url = new URL("/api/v1/exclusivity-events", baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const result: PhaseResult = { seconds: 0, batches: 0, accepted: 0, duplicates: 0, rejected: 0, failures: 0, latenciesMs: [] };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let next = 0;
  const client = async () => {
    while (performance.now() < deadline && next < bodies.length) {
      const body = bodies[next++]!;
      const sentAt = performance.now();
      const answer = await post(agent, url, token, body);
      result.latenciesMs.push(performance.now() - sentAt);
      result.batches += 1;
      if (answer.status !== 200) {
        result.failures += 1;
        if (result.failures <= 3) log(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
        continue;
      }
      const counts = JSON.parse(answer.text) as { accepted: number; duplicates: number; rejected: number };
      result.accepted += counts.accepted;
      result.duplicates += counts.duplicates;
      result.rejected += counts.rejected;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  result.seconds = (performance.now() - started) / 1000;
  if (next >= bodies.length) log(`note: the ${bodies.length} pre-built batches ran out before ${seconds} s`);
  agent.destroy();
  return result;
}

type CopyResult = { connections: number; rows: number; seconds: number; postgresCpuSeconds: number };

/**
 * COPY ... FROM STDIN of fresh rows from the same generator into the same table, on
 * `connections` connections at once, in statements of COPY_STATEMENT_ROWS until about
 * COPY_SECONDS have passed or the data (at most maxRows, built before the clock starts) runs
 * out; either way the rate is rows over the time taken.
 */
async function measureCopy(databaseUrl: string, connections: number, maxRows: number): Promise<CopyResult> {
  const statements = Math.max(connections, Math.ceil(maxRows / COPY_STATEMENT_ROWS));
  const data: Buffer[][] = [];
  for (let s = 0; s < statements; s++) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < COPY_STATEMENT_ROWS; i += BATCH_SIZE)
      chunks.push(Buffer.from(`${Array.from({ length: BATCH_SIZE }, () => toCopyLine(makeBenchEvent())).join("\n")}\n`));
    data.push(chunks);
  }
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const backendPid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
      return { client, backendPid };
    }),
  );
  try {
    const cpuBefore = clients.reduce((sum, c) => sum + processCpuSeconds(c.backendPid), 0);
    let rows = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async ({ client }) => {
        while (next < data.length && performance.now() - started < COPY_SECONDS * 1000) {
          const copied = await copyFromStdin(client, `COPY exclusivity_event ${COPY_COLUMNS} FROM STDIN`, data[next++]!);
          rows += copied;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = clients.reduce((sum, c) => sum + processCpuSeconds(c.backendPid), 0);
    return { connections, rows, seconds, postgresCpuSeconds: cpuAfter - cpuBefore };
  } finally {
    await Promise.all(clients.map(({ client }) => client.end()));
  }
}

/** pg_stat_statements, reset now; `read` lists what ran since, by total execution time. */
async function startStatementStats(databaseUrl: string): Promise<{ read(): Promise<string[]> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await client.query("SELECT pg_stat_statements_reset()");
  return {
    read: async () => {
      try {
        const { rows } = await client.query<{ calls: string; total_ms: number; mean_ms: number; rows: string; query: string }>(
          `SELECT calls, total_exec_time AS total_ms, mean_exec_time AS mean_ms, rows, query FROM pg_stat_statements
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls > 10
           ORDER BY total_exec_time DESC LIMIT 8`,
        );
        return rows.map(
          (r) =>
            `${r.total_ms.toFixed(0).padStart(7)} ms total, ${fmt(Number(r.calls)).padStart(6)} calls, ${r.mean_ms.toFixed(2).padStart(6)} ms each, ${fmt(Number(r.rows)).padStart(9)} rows: ${r.query.replace(/\s+/g, " ").slice(0, 90)}`,
        );
      } finally {
        await client.end();
      }
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function describeLatency(latenciesMs: number[]): string {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} ms`;
}

const rate = (n: number, seconds: number) => Math.round(n / seconds);
const fmt = (n: number) => n.toLocaleString("en-US");

type Server = { url: string; pid: number; stop(): Promise<void> };

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}) before it was ready`));
    });
  });
}

async function startServer(databaseUrl: string): Promise<Server> {
  const port = await findFreePort();
  const env = { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) };
  // --cpu-prof-dir: the server writes a V8 CPU profile there when it exits (tests/bench/cpu-profile-summary.ts reads it).
  const profiling = args["cpu-prof-dir"] ? ["--cpu-prof", `--cpu-prof-dir=${args["cpu-prof-dir"]}`] : [];
  const child = spawn(process.execPath, [...profiling, "--conditions=react-server", "--import", "tsx", path.join(root, "tests", "bench", "serve-ingest.ts")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  await waitForLine(child, /listening /, 60_000);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The empty store: a throwaway embedded PostgreSQL, or a fresh migrated database on the server of --database-url. */
async function startEmptyStore(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = args["database-url"];
  if (!given) {
    log("starting a throwaway PostgreSQL...");
    return startTestDatabase({ extraSettings: args.statements ? ["shared_preload_libraries=pg_stat_statements"] : [] });
  }
  assertLocalDatabaseUrl(given);
  const database = await createScratchDatabase(given, "bench_ingest_empty");
  await applyMigrations(database.url);
  log(`empty store: ${new URL(database.url).pathname.slice(1)} on ${new URL(given).host}`);
  return { url: database.url, stop: database.drop };
}

type StoredResult = { rows: number; ingest: PhaseResult; copy: CopyResult; parallelCopy: CopyResult };

/** Phase 1 and the COPY again, against the loaded store of --stored-database-url (its own server process). */
async function measureStoredStore(url: string): Promise<StoredResult> {
  assertLocalDatabaseUrl(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const estimate = Number(
    (
      await client.query<{ n: string }>(
        "select coalesce(sum(c.reltuples), 0)::bigint as n from pg_partition_tree('exclusivity_event') t join pg_class c on c.oid = t.relid where t.isleaf",
      )
    ).rows[0]!.n,
  );
  await client.end();
  log(`stored store: about ${fmt(estimate)} rows in ${new URL(url).pathname.slice(1)}`);
  const db = createDb(url);
  const { token } = await createApiToken(db, `bench-${Date.now()}`);
  await db.$disconnect();
  const server = await startServer(url);
  try {
    const phaseBatches = Math.ceil((MAX_EXPECTED_RATE * SECONDS) / BATCH_SIZE);
    const warmUp = makeBodies(Math.ceil((MAX_EXPECTED_RATE * WARM_UP_SECONDS) / BATCH_SIZE));
    const bodies = makeBodies(phaseBatches);
    log(`stored store: warm-up (${WARM_UP_SECONDS} s, not counted)...`);
    await runPhase(server.url, token, warmUp.bodies, WARM_UP_SECONDS);
    log(`stored store: unique events for ${SECONDS} s...`);
    const ingest = await runPhase(server.url, token, bodies.bodies, SECONDS);
    const copyRows = Math.min(MAX_EXPECTED_RATE, 4 * rate(ingest.accepted, ingest.seconds)) * COPY_SECONDS;
    log(`stored store: COPY for about ${COPY_SECONDS} s on one connection, then on ${CLIENTS}...`);
    const copy = await measureCopy(url, 1, copyRows);
    const parallelCopy = await measureCopy(url, CLIENTS, copyRows);
    return { rows: estimate, ingest, copy, parallelCopy };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  log(`${os.cpus().length} CPUs, load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")}; ${CLIENTS} clients, ${SECONDS} s per phase`);
  const database = await startEmptyStore();
  const cleanups: (() => Promise<void>)[] = [database.stop];
  try {
    const db = createDb(database.url);
    const { token } = await createApiToken(db, "bench");
    await db.$disconnect();
    const server = await startServer(database.url);
    cleanups.unshift(server.stop);

    const phaseBatches = Math.ceil((MAX_EXPECTED_RATE * SECONDS) / BATCH_SIZE);
    log(`building ${fmt(phaseBatches * BATCH_SIZE)} events...`);
    const warmUp = makeBodies(Math.ceil((MAX_EXPECTED_RATE * WARM_UP_SECONDS) / BATCH_SIZE));
    const uniqueEvents = makeBodies(phaseBatches);

    const probe = new pg.Client({ connectionString: database.url });
    await probe.connect();
    const postmasterPid = parentPid((await probe.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid);
    await probe.end();
    const cpu = createCpuMeter(server.pid, postmasterPid);

    log(`warm-up (${WARM_UP_SECONDS} s, not counted)...`);
    await runPhase(server.url, token, warmUp.bodies, WARM_UP_SECONDS);

    const statements = args.statements ? await startStatementStats(database.url) : null;
    log(`phase 1: unique events for ${SECONDS} s...`);
    const cpuBeforeUnique = cpu.read();
    const unique = await runPhase(server.url, token, uniqueEvents.bodies, SECONDS);
    const cpuAfterUnique = cpu.read();
    const phase1Statements = await statements?.read();

    log(`COPY for about ${COPY_SECONDS} s on one connection, then on ${CLIENTS}...`);
    // Rows for COPY up to 4x the ingest rate (a ratio down to 25%) over the COPY window:
    // building more would only cost time, since the rate is rows over the time taken.
    const copyRows = Math.min(MAX_EXPECTED_RATE, 4 * rate(unique.accepted, unique.seconds)) * COPY_SECONDS;
    const copy = await measureCopy(database.url, 1, copyRows);
    const parallelCopy = await measureCopy(database.url, CLIENTS, copyRows);

    // Twice what phase 1 got through; should they run out, the rate is still events over time.
    const halfDuplicateBodies = makeHalfDuplicateBodies(
      Math.min(phaseBatches, 2 * unique.batches + 20),
      uniqueEvents.first,
      uniqueEvents.first + unique.batches * BATCH_SIZE,
    );
    log(`phase 2: 50% duplicates for ${SECONDS} s...`);
    const cpuBeforeDuplicates = cpu.read();
    const halfDuplicates = await runPhase(server.url, token, halfDuplicateBodies, SECONDS);
    const cpuAfterDuplicates = cpu.read();

    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    const rows = Number((await check.query<{ n: string }>("select count(*) as n from exclusivity_event where source = 'HTTP'")).rows[0]!.n);
    await check.end();

    const ingestRate = rate(unique.accepted, unique.seconds);
    const copyRate = rate(copy.rows, copy.seconds);
    const parallelCopyRate = rate(parallelCopy.rows, parallelCopy.seconds);
    const loadAfter = os.loadavg();
    const describeCopy = (result: CopyResult) =>
      `(${fmt(result.rows)} rows in ${result.seconds.toFixed(1)} s; CPU per 1,000 rows: PostgreSQL ${((result.postgresCpuSeconds * 1e6) / result.rows).toFixed(0)} ms)`;
    console.log("");
    console.log("Ingest through the HTTP API (1,000-event batches)");
    console.log(
      `  unique events:   ${fmt(ingestRate)} events/s  (${fmt(unique.accepted)} in ${unique.seconds.toFixed(1)} s; ${unique.failures} failed requests, ${unique.rejected} rejected)`,
    );
    console.log(`                   batch latency ${describeLatency(unique.latenciesMs)}`);
    console.log(`                   ${describeCpu(cpuBeforeUnique, cpuAfterUnique, unique.accepted + unique.duplicates)}`);
    console.log(`  raw COPY:        ${fmt(copyRate)} rows/s on one connection ${describeCopy(copy)}`);
    console.log(`                   ${fmt(parallelCopyRate)} rows/s on ${CLIENTS} connections ${describeCopy(parallelCopy)}`);
    console.log(
      `  ratio:           ${((100 * ingestRate) / copyRate).toFixed(0)}% of COPY on one connection, ${((100 * ingestRate) / parallelCopyRate).toFixed(0)}% of COPY on ${CLIENTS}`,
    );
    console.log(
      `  50% duplicates:  ${fmt(rate(halfDuplicates.accepted + halfDuplicates.duplicates, halfDuplicates.seconds))} events/s  (${fmt(rate(halfDuplicates.accepted, halfDuplicates.seconds))} new rows/s; ${halfDuplicates.failures} failed requests)`,
    );
    console.log(`                   batch latency ${describeLatency(halfDuplicates.latenciesMs)}`);
    console.log(`                   ${describeCpu(cpuBeforeDuplicates, cpuAfterDuplicates, halfDuplicates.accepted + halfDuplicates.duplicates)}`);
    console.log(`  check:           ${fmt(rows)} rows from HTTP in the table (warm-up included)`);
    if (phase1Statements) {
      console.log("  PostgreSQL's statements in phase 1 (pg_stat_statements), by total execution time:");
      for (const line of phase1Statements) console.log(`    ${line}`);
    }
    const storedUrl = args["stored-database-url"];
    if (storedUrl) {
      await server.stop();
      const stored = await measureStoredStore(storedUrl);
      const storedRate = rate(stored.ingest.accepted, stored.ingest.seconds);
      const storedCopyRate = rate(stored.copy.rows, stored.copy.seconds);
      const storedParallelCopyRate = rate(stored.parallelCopy.rows, stored.parallelCopy.seconds);
      console.log(`With about ${fmt(stored.rows)} events stored (same run, same server)`);
      console.log(
        `  unique events:   ${fmt(storedRate)} events/s  (${fmt(stored.ingest.accepted)} in ${stored.ingest.seconds.toFixed(1)} s; ${stored.ingest.failures} failed requests, ${stored.ingest.rejected} rejected)`,
      );
      console.log(`                   batch latency ${describeLatency(stored.ingest.latenciesMs)}`);
      console.log(`  vs empty store:  ${((100 * storedRate) / ingestRate).toFixed(0)}% of the empty store's ${fmt(ingestRate)} events/s`);
      console.log(`  raw COPY:        ${fmt(storedCopyRate)} rows/s on one connection ${describeCopy(stored.copy)}`);
      console.log(`                   ${fmt(storedParallelCopyRate)} rows/s on ${CLIENTS} connections ${describeCopy(stored.parallelCopy)}`);
      console.log(
        `  ratio:           ${((100 * storedRate) / storedCopyRate).toFixed(0)}% of COPY on one connection, ${((100 * storedRate) / storedParallelCopyRate).toFixed(0)}% of COPY on ${CLIENTS}`,
      );
    }
    console.log(
      `  machine:         ${os.cpus().length} CPUs, load average before ${loadBefore[0]!.toFixed(2)}, after the empty store's phases ${loadAfter[0]!.toFixed(2)}, at the end ${os.loadavg()[0]!.toFixed(2)}`,
    );
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    console.error("bench:ingest failed:", error);
    process.exit(1);
  });
