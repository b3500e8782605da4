// Benchmark: one read of the database kind on a server holding 10,000 PostgreSQL advisory locks.
// One session holds them all (`pg_advisory_lock(i)` for i in 1..N; one session may hold many),
// three more queue for the first key, so the read joins waiters and their pg_blocking_pids too.
// Measured, over --runs reads:
//  - PostgreSQL's time for the read's query: EXPLAIN (ANALYZE) of the very query the source
//    sends (planning + execution), the target: at most 100 ms;
//  - the source's read as Baton makes it (read-only transaction, SET LOCAL statement_timeout,
//    the query, COMMIT, rows into observations), on the client's clock.
// The server: a throwaway embedded PostgreSQL (the tests' own), or BATON_BENCH_DATABASE_URL.
// Run: npm run bench:database [-- --locks 10000 --runs 30]
import { parseArgs } from "node:util";

import pg from "pg";

import { createDatabaseHoldSource } from "@/lib/sources/database";
import { ADVISORY_LOCKS_SQL } from "@/lib/sources/database/advisory-lock-rows";
import { parseDatabaseClusterConfig } from "@/lib/sources/database/database-config";
import { startTestDatabase } from "@/tests/support/test-database";

const { values } = parseArgs({ options: { locks: { type: "string", default: "10000" }, runs: { type: "string", default: "30" } } });
const lockCount = Number(values.locks);
const runs = Number(values.runs);
const TARGET_MS = 100;

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

const summary = (figures: number[]) => {
  const sorted = [...figures].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted.at(-1)! };
};

async function main(): Promise<void> {
  const given = process.env.BATON_BENCH_DATABASE_URL;
  const server = given ? { url: given, stop: async () => undefined } : await startTestDatabase();
  const database = new URL(server.url).pathname.slice(1);
  const holder = new pg.Client({ connectionString: server.url, application_name: "bench-holder" });
  const waiters = [1, 2, 3].map((i) => new pg.Client({ connectionString: server.url, application_name: `bench-waiter-${i}` }));
  const explain = new pg.Client({ connectionString: server.url, application_name: "bench-explain" });
  const source = createDatabaseHoldSource(parseDatabaseClusterConfig({ kind: "database", name: "bench", url: server.url, databases: [database] }));
  try {
    for (const client of [holder, ...waiters, explain]) await client.connect();
    const taken = await holder.query<{ n: string }>("select count(pg_advisory_lock(i)) as n from generate_series(1, $1::int) i", [lockCount]);
    for (const waiter of waiters) {
      waiter.query("select pg_advisory_lock(1)").catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const found = await source.discover();
    const refs = found.keys;
    if (refs.length !== lockCount) throw new Error(`expected ${lockCount} locks, the read found ${refs.length}`);
    const first = await source.observe(refs.filter((ref) => ref.key === `${database}/1`));
    console.log(`[bench] ${taken.rows[0]!.n} advisory locks held by one session, 3 waiters on key 1 (${first.observations[0]?.waiters.join(", ")})`);

    const serverMs: number[] = [];
    const readMs: number[] = [];
    const queryMs: number[] = [];
    for (let run = 0; run < runs; run++) {
      const plan = await explain.query<{ "QUERY PLAN": { "Planning Time": number; "Execution Time": number }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${ADVISORY_LOCKS_SQL}`,
        [[database]],
      );
      const top = plan.rows[0]!["QUERY PLAN"][0]!;
      serverMs.push(top["Planning Time"] + top["Execution Time"]);
      // Past the discovery's reuse window: each observe is a read of its own.
      await new Promise((resolve) => setTimeout(resolve, 1_050 / runs + 5));
      const started = performance.now();
      const read = await source.observe(refs);
      readMs.push(performance.now() - started);
      queryMs.push(source.lastReadCost()!.durationMs);
      if (read.errors.length > 0 || read.observations.length !== lockCount) throw new Error(`a read failed: ${JSON.stringify(read.errors[0])}`);
    }
    const atServer = summary(serverMs);
    const atClient = summary(readMs);
    const ofQuery = summary(queryMs);
    const cost = source.lastReadCost()!;
    console.log(
      `[bench] PostgreSQL time of one read (EXPLAIN ANALYZE, ${runs} runs): median ${atServer.median.toFixed(1)} ms, p95 ${atServer.p95.toFixed(1)} ms, max ${atServer.max.toFixed(1)} ms (target <= ${TARGET_MS} ms)`,
    );
    console.log(
      `[bench] the source's read (transaction, query, ${cost.rows} rows into ${cost.locks} observations): median ${atClient.median.toFixed(1)} ms, p95 ${atClient.p95.toFixed(1)} ms, max ${atClient.max.toFixed(1)} ms; of which the transaction and query with the rows parsed by pg: median ${ofQuery.median.toFixed(1)} ms, p95 ${ofQuery.p95.toFixed(1)} ms`,
    );
    if (atServer.median > TARGET_MS) {
      console.error(`[bench] FAIL: PostgreSQL's median time ${atServer.median.toFixed(1)} ms is over ${TARGET_MS} ms`);
      process.exitCode = 1;
    }
  } finally {
    await source.close();
    for (const client of [...waiters, holder, explain]) await client.end().catch(() => undefined);
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
