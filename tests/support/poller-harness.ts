import type { ClusterConfig } from "@/lib/config";
import { loadConfig } from "@/lib/config";
import { syncClusters } from "@/lib/clusters/sync-clusters";
import { createDb, type Db } from "@/lib/db/client";
import { createSqlDb } from "@/lib/db/sql-db";
import { pollClusterWhileLeader } from "@/lib/worker/poll-cluster-while-leader";
import { pollUntil } from "@/tests/support/poll-until";

/** A cluster configuration for a test: the test broker, one scratch namespace, fast polling. */
export function testClusterConfig(name: string, adminUrl: string, namespace: string, pollIntervalMs = 500): ClusterConfig {
  return loadConfig({
    BATON_CLUSTERS: JSON.stringify([{ name, adminUrl, scope: { namespaces: [namespace] }, pollIntervalMs, discoveryIntervalMs: 1000, requestTimeoutMs: 2000 }]),
  }).clusters[0]!;
}

export async function registerCluster(db: Db, cluster: ClusterConfig): Promise<number> {
  await syncClusters(db, { clusters: [cluster] });
  return (await db.cluster.findUniqueOrThrow({ where: { name: cluster.name }, select: { id: true } })).id;
}

export type RunningPoller = { pollerId: string; stop(): Promise<void> };

/**
 * A poller as the worker runs it (lease, standby, takeover; its database access through plain pg,
 * as lib/worker/main.ts gives it), stopped by stop().
 */
export function startPoller(options: { databaseUrl: string; cluster: ClusterConfig; clusterId: number; pollerId: string; logs?: string[] }): RunningPoller {
  const controller = new AbortController();
  const db = createSqlDb(options.databaseUrl, { applicationName: `baton-test-${options.pollerId}` });
  const done = pollClusterWhileLeader({
    db,
    databaseUrl: options.databaseUrl,
    cluster: options.cluster,
    clusterId: options.clusterId,
    pollerId: options.pollerId,
    signal: controller.signal,
    log: (line) => options.logs?.push(line),
  });
  return {
    pollerId: options.pollerId,
    stop: async () => {
      controller.abort();
      await done;
      await db.$disconnect();
    },
  };
}

/** Reads until `isDone` accepts the value (bounded by a count of reads, not a deadline); returns it. */
export async function waitFor<T>(read: () => Promise<T>, isDone: (value: T) => boolean, what: string, attempts = 150, everyMs = 200): Promise<T> {
  return (await pollUntil(read, isDone, { maxAttempts: attempts, intervalMs: everyMs, description: what })).value;
}

export function createTestDb(url: string): Db {
  return createDb(url);
}
