import "server-only";

import type { ClusterConfig } from "@/lib/config";
import type { SqlDb } from "@/lib/db/sql-db";
import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { runReplicaLeases } from "@/lib/poller/fleet/replica-leases";
import { PollerDeposedError } from "@/lib/poller/resource-store";
import { runSourcePoller } from "@/lib/poller/run-source-poller";
import { sourceKindOf } from "@/lib/sources/registry";

// This worker replica's part of the fleet: it polls the clusters whose leases it holds
// (lib/poller/fleet/replica-leases.ts decides which: its share of the fleet's), each under its
// lease's epoch, stops one after its current cycle when the lease is handed back, and at once when
// it is lost. On shutdown every poller ends its cycle and every lease is handed over.

type Options = {
  db: SqlDb;
  databaseUrl: string;
  clusters: { cluster: ClusterConfig; clusterId: number }[];
  replicaId: string;
  /** How often a replica heartbeats, renews its leases and tries free ones. */
  retryMs?: number;
  signal: AbortSignal;
  log: (line: string) => void;
};

const RESTART_DELAY_MS = 2_000;

type Running = { stop: AbortController; done: Promise<void> };

export async function runPollerFleet(options: Options): Promise<void> {
  const { db, log } = options;
  const byId = new Map(options.clusters.map((c) => [c.clusterId, c.cluster]));
  const running = new Map<number, Running>();

  /** Polls the cluster under `epoch` until stopped; a poller that fails starts again while the lease is held. */
  const poll = (clusterId: number, epoch: bigint) => {
    const cluster = byId.get(clusterId)!;
    const stop = new AbortController();
    const done = (async () => {
      while (!stop.signal.aborted) {
        try {
          await runSourcePoller({
            db,
            databaseUrl: options.databaseUrl,
            cluster,
            kind: sourceKindOf(cluster),
            clusterId,
            epoch,
            pollerId: options.replicaId,
            signal: stop.signal,
            log,
          });
          return;
        } catch (error) {
          // Deposed: the lease's next renewal finds the epoch superseded and says so.
          if (error instanceof PollerDeposedError) return log(`${cluster.name}: ${error.message}; not polling it`);
          log(`${cluster.name}: poller failed: ${(error as Error).message}; restarting`);
          await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
        }
      }
    })();
    running.set(clusterId, { stop, done });
  };

  const stopPolling = async (clusterId: number) => {
    const poller = running.get(clusterId);
    running.delete(clusterId);
    // Aborting lets a cycle under way finish and be saved: a hand-over never cuts one in half.
    poller?.stop.abort();
    await poller?.done;
  };

  await runReplicaLeases({
    databaseUrl: options.databaseUrl,
    replicaId: options.replicaId,
    clusters: new Map(options.clusters.map((c) => [c.clusterId, c.cluster.name])),
    retryMs: options.retryMs ?? 2_000,
    signal: options.signal,
    log,
    callbacks: {
      onTaken: poll,
      stopPolling,
      onLost: (clusterId) => void stopPolling(clusterId),
    },
    onLeaseCount: (count) => getProcessMetrics().clusterLeases.set(count),
    onStatement: () => getProcessMetrics().leaseStatements.inc(),
  });
  await Promise.all([...running.values()].map((poller) => poller.done));
}
