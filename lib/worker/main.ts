// The background process: polls its share of the configured clusters (one poller per cluster
// across all Baton processes, the clusters spread evenly over the worker replicas: lib/poller/fleet/), consumes the ingest topic when one is configured, and
// keeps the event store's partitions, hours of events and days of violations (creates them ahead,
// drops those past the retention; the rollups stay), and
// evaluates the alert rules and delivers their notifications (one evaluator across processes).
// Runs outside Next's request handling so that several web replicas do not mean several
// pollers. `npm start` runs it; `npm run worker` alone too.
import "server-only";

import os from "node:os";

import { checkAlertmanager } from "@/lib/alerts/check-alertmanager";
import { readChangeMark } from "@/lib/alerts/read-change-mark";
import { readConditions } from "@/lib/alerts/read-conditions";
import { runAlertEvaluator } from "@/lib/alerts/run-alert-evaluator";
import { syncClusters } from "@/lib/clusters/sync-clusters";
import { ConfigError, getListenSettings, loadConfig } from "@/lib/config";
import { resolveDatabaseUrl } from "@/lib/db/database-url";
import { sql } from "@/lib/db/sql";
import { createSqlDb } from "@/lib/db/sql-db";
import { planListen } from "@/lib/http/listen-address";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { serveWorkerMetrics } from "@/lib/metrics/serve-worker-metrics";
import { runTopicSource } from "@/lib/ingest/topic-source/run-topic-source";
import { runRetentionLoop } from "@/lib/retention/retention-loop";
import { limitHeapGrowth } from "@/lib/worker/limit-heap-growth";
import { runPollerFleet } from "@/lib/worker/run-poller-fleet";

const defaultReplicaId = `${os.hostname()}:${process.pid}`;
const log = (line: string) => console.log(`[worker] ${line}`);

async function main(): Promise<void> {
  limitHeapGrowth();
  const config = loadConfig();
  const replicaId = config.fleet.workerId ?? defaultReplicaId;
  const databaseUrl = resolveDatabaseUrl(config);
  // Plain pg, not the Prisma client: the worker runs its own SQL, and the client with its query
  // compiler would be most of its memory (docs/scale.md, "The worker's memory").
  const db = createSqlDb(databaseUrl, { applicationName: "baton-worker" });
  await syncClusters(db, config);
  const clusters = await db.$queryRaw<{ id: number; name: string }[]>(
    sql`select id, name from cluster where name = any(${config.clusters.map((c) => c.name)}::text[])`,
  );
  const ids = new Map(clusters.map((c) => [c.name, c.id]));

  const shutdown = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => shutdown.abort());
  if (config.clusters.length === 0) log("no cluster configured: nothing to poll");
  // An unreachable Alertmanager is a warning, not a reason to stop: the outbox keeps its alerts.
  void checkAlertmanager(config.alerts.alertmanagerUrl).then((warning) => warning && log(`WARNING: ${warning}`));
  if (config.metrics.workerPort > 0) await serveWorkerMetrics(planListen(getListenSettings(config, config.metrics.workerPort)), shutdown.signal, log);
  const ingestPool = config.ingest.topic ? createIngestPool(databaseUrl) : null;
  const stopped = new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve(), { once: true }));
  await Promise.all([
    runPollerFleet({
      db,
      databaseUrl,
      clusters: config.clusters.map((cluster) => ({ cluster, clusterId: ids.get(cluster.name)! })),
      replicaId,
      retryMs: config.fleet.retryMs,
      signal: shutdown.signal,
      log,
    }),
    config.ingest.topic && ingestPool
      ? runTopicSource({
          topic: config.ingest.topic,
          db: ingestPool,
          consumerName: `baton-${replicaId.replace(/[^\w.-]/g, "-")}`,
          retentionDays: config.violations.retentionDays,
          violationRetentionDays: config.violations.violationRetentionDays,
          signal: shutdown.signal,
          log,
        })
      : Promise.resolve(),
    // Deletes are idempotent: several workers may each run it; none blocks ingestion.
    runRetentionLoop(db, config.violations, shutdown.signal, log),
    runAlertEvaluator({
      db,
      databaseUrl,
      alerts: config.alerts,
      readConditions: (nowMs) => readConditions(db, config, nowMs),
      readChangeMark: () => readChangeMark(db),
      evaluatorId: replicaId,
      signal: shutdown.signal,
      log,
    }),
    stopped,
  ]);
  await ingestPool?.end();
  await db.$disconnect();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`[worker] cannot run: ${error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error))}`);
    process.exit(1);
  },
);
