// `npm run bench:fleet`: 100 clusters (Redis lock clusters on the machine's Redis, each scoped to
// its own key prefix) over 10 worker processes sharing one PostgreSQL, as `npm run worker` on 10
// machines. Prints the spread, the hand-over time after a SIGKILL (from the kill until each of the
// dead replica's clusters had a poll cycle saved by its new holder; p50/p95 over three kills),
// and what the leases cost PostgreSQL: the statements the replicas' lock connections sent a
// second (their own /metrics), against the target W / retry interval plus the heartbeats.
// Needs DATABASE_URL (a scratch database: it creates clusters named bench-fleet-*) or starts an
// embedded PostgreSQL like the tests'.
import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";

import pg from "pg";

import { syncClusters } from "@/lib/clusters/sync-clusters";
import { loadConfig } from "@/lib/config";
import { createSqlDb } from "@/lib/db/sql-db";
import { applyMigrations } from "@/lib/db/migrate";
import { startTestDatabase } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";
import { findFreePort } from "@/tools/free-port";

const CLUSTERS = 100;
const REPLICAS = 10;
const RETRY_MS = 2_000;
const KILLS = 3;
const REDIS_URL = process.env.BATON_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

type Replica = { id: string; process: ChildProcess; metricsPort: number };

const clusterEntries = Array.from({ length: CLUSTERS }, (_, i) => ({
  kind: "redis",
  name: `bench-fleet-${String(i).padStart(3, "0")}`,
  url: REDIS_URL,
  pollIntervalMs: 5_000,
  patterns: [{ match: `bench-fleet:${i}:*` }],
}));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function main(): Promise<void> {
  const database = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL, stop: async () => {} } : await startTestDatabase();
  const databaseUrl = database.url;
  await applyMigrations(databaseUrl);
  const config = loadConfig({ DATABASE_URL: databaseUrl, BATON_CLUSTERS: JSON.stringify(clusterEntries) });
  const sqlDb = createSqlDb(databaseUrl);
  await syncClusters(sqlDb, config);
  await sqlDb.$disconnect();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const { rows: ids } = await db.query<{ id: number }>("select id from cluster where name like 'bench-fleet-%'");
  const clusterIds = ids.map((row) => row.id);
  const replicas: Replica[] = [];
  let generation = 0;

  const start = async (): Promise<Replica> => {
    generation += 1;
    const id = `bench-fleet-w${generation}`;
    const metricsPort = await findFreePort();
    const child = spawn(process.execPath, await workerNodeArgs(), {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        BATON_CLUSTERS: JSON.stringify(clusterEntries),
        BATON_WORKER_ID: id,
        BATON_FLEET_RETRY_MS: String(RETRY_MS),
        BATON_WORKER_METRICS_PORT: String(metricsPort),
        BATON_ALERT_RULES: JSON.stringify({ violations: { enabled: false } }),
      },
      detached: true,
      stdio: "ignore",
    });
    const replica = { id, process: child, metricsPort };
    replicas.push(replica);
    return replica;
  };

  /** Leases held now (by a live lock), per replica. */
  const spread = async (): Promise<Map<string, number[]>> => {
    const { rows } = await db.query<{ poller_id: string; cluster_id: number }>(
      `select l.poller_id, l.cluster_id from poller_lease l
       where l.cluster_id = any($1::int[])
         and exists (select 1 from pg_locks k where k.locktype = 'advisory' and k.granted and k.classid = ${0x4241544e}::bigint::oid and k.objid = l.cluster_id::bigint::oid)`,
      [clusterIds],
    );
    const byReplica = new Map<string, number[]>();
    for (const row of rows) byReplica.set(row.poller_id, [...(byReplica.get(row.poller_id) ?? []), row.cluster_id]);
    return byReplica;
  };
  const total = (s: Map<string, number[]>) => [...s.values()].reduce((sum, list) => sum + list.length, 0);

  const statements = async (): Promise<number> => {
    let sum = 0;
    for (const replica of replicas) {
      if (replica.process.exitCode !== null || replica.process.signalCode !== null) continue;
      const text = await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)
        .then((r) => r.text())
        .catch(() => "");
      const line = text.split("\n").find((l) => l.startsWith("baton_worker_lease_statements_total "));
      sum += line ? Number(line.split(" ")[1]) : 0;
    }
    return sum;
  };

  try {
    const startedAt = performance.now();
    for (let i = 0; i < REPLICAS; i++) await start();
    let settled = await spread();
    while (!(settled.size === REPLICAS && total(settled) === CLUSTERS && [...settled.values()].every((list) => list.length === CLUSTERS / REPLICAS))) {
      await sleep(250);
      settled = await spread();
    }
    console.log(
      `[bench:fleet] ${CLUSTERS} clusters over ${REPLICAS} replicas: ${[...settled.values()].map((l) => l.length).join(", ")} (settled ${((performance.now() - startedAt) / 1000).toFixed(1)} s after the first start)`,
    );

    // What the leases cost PostgreSQL, steady: the lock connections' statements over 30 s.
    const before = await statements();
    const windowStart = performance.now();
    await sleep(30_000);
    const perSecond = ((await statements()) - before) / ((performance.now() - windowStart) / 1000);
    const target = (REPLICAS * 3) / (RETRY_MS / 1000);
    console.log(
      `[bench:fleet] lease statements: ${perSecond.toFixed(1)}/s for the fleet (${REPLICAS} replicas x (heartbeat + lease renewal [+ a try when short]) / ${RETRY_MS / 1000} s; target <= ${target}/s)`,
    );

    const handovers: number[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const current = await spread();
      const victim = replicas.find((r) => current.has(r.id) && r.process.exitCode === null && r.process.signalCode === null)!;
      const orphaned = current.get(victim.id)!;
      const killedAt = Date.now();
      process.kill(-victim.process.pid!, "SIGKILL");
      const pending = new Set(orphaned);
      while (pending.size > 0) {
        const { rows } = await db.query<{ cluster_id: number; finished_at: Date }>(
          "select cluster_id, min(finished_at) as finished_at from poll_run where cluster_id = any($1::int[]) and poller_id <> $2 and finished_at > $3 group by cluster_id",
          [[...pending], victim.id, new Date(killedAt)],
        );
        for (const row of rows) {
          handovers.push(row.finished_at.getTime() - killedAt);
          pending.delete(row.cluster_id);
        }
        await sleep(50);
      }
      await start();
      do {
        await sleep(250);
        settled = await spread();
      } while (!(settled.size === REPLICAS && total(settled) === CLUSTERS && [...settled.values()].every((l) => l.length === CLUSTERS / REPLICAS)));
    }
    console.log(
      `[bench:fleet] hand-over after a SIGKILL (kill to the new holder's first saved cycle, ${handovers.length} clusters over ${KILLS} kills): p50 ${percentile(handovers, 50)} ms, p95 ${percentile(handovers, 95)} ms, max ${Math.max(...handovers)} ms (retry ${RETRY_MS} ms)`,
    );
    console.log(
      `[bench:fleet] load average during the run: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    for (const replica of replicas)
      if (replica.process.exitCode === null && replica.process.signalCode === null) process.kill(-replica.process.pid!, "SIGKILL");
    await db.query("delete from worker_replica where replica_id like 'bench-fleet-%'");
    await db.query("delete from cluster where name like 'bench-fleet-%'");
    await db.end();
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
