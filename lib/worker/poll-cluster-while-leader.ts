import "server-only";

import type { ClusterConfig } from "@/lib/config";
import type { SqlDb } from "@/lib/db/sql-db";
import { runSourcePoller } from "@/lib/poller/run-source-poller";
import { acquirePollerLease } from "@/lib/poller/poller-lease";
import { PollerDeposedError } from "@/lib/poller/resource-store";
import { sourceKindOf } from "@/lib/sources/registry";

type Options = {
  db: SqlDb;
  databaseUrl: string;
  cluster: ClusterConfig;
  clusterId: number;
  pollerId: string;
  signal: AbortSignal;
  log: (line: string) => void;
};

const RESTART_DELAY_MS = 2_000;

/**
 * Stands by until this process holds the cluster's poller lease, polls while it holds it, and
 * goes back to standing by when it loses it, until `signal` aborts. One cluster on a connection of
 * its own: the tests' pollers. The worker polls its share of a fleet's clusters instead
 * (lib/worker/run-poller-fleet.ts), under the same locks and epochs.
 */
export async function pollClusterWhileLeader(options: Options): Promise<void> {
  const { cluster, signal, log } = options;
  while (!signal.aborted) {
    const lease = await acquirePollerLease({ databaseUrl: options.databaseUrl, clusterId: options.clusterId, pollerId: options.pollerId, signal, log });
    if (!lease) return;
    log(`${cluster.name}: polling as poller ${options.pollerId}, epoch ${lease.epoch}`);
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    void lease.lost.then((reason) => {
      if (!stop.signal.aborted) log(`${cluster.name}: lost the poller lease (${reason}); standing by`);
      stop.abort();
    });
    try {
      await runSourcePoller({ ...options, kind: sourceKindOf(cluster), epoch: lease.epoch, signal: stop.signal });
    } catch (error) {
      if (error instanceof PollerDeposedError) log(`${cluster.name}: ${error.message}; standing by`);
      else log(`${cluster.name}: poller failed: ${(error as Error).message}; restarting`);
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
      await lease.release();
    }
    if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
  }
}
