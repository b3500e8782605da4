import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { createConcurrentHoldRecorder } from "@/lib/poller/record-concurrent-holds";
import { loadCycleStates, saveCycle } from "@/lib/poller/resource-store";
import { saveChangeSignal } from "@/lib/poller/save-change-signal";
import type { BaseClusterConfig, SourceKind } from "@/lib/poller/contract/source-kind";
import type { CycleResult } from "@/lib/poller/source-cycles";
import { WrittenRows } from "@/lib/poller/written-rows";
import { nextFailureStreak, NO_FAILURES } from "@/lib/poller/failure-streak";

export type SourcePollerOptions<C extends BaseClusterConfig> = {
  db: SqlDb;
  /** The same database's URL: the double runs a read sees are written through the ingest path, on a pool of its own. */
  databaseUrl: string;
  cluster: C;
  /** The cluster's kind, resolved by the caller (the worker): the poller itself knows no kind. */
  kind: SourceKind<C>;
  clusterId: number;
  epoch: bigint;
  pollerId: string;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Called after each saved cycle (tests and benchmarks observe the poller through it). */
  onCycle?: (cycle: { changeCount: number; errorCount: number; topicCount: number; cycleMs: number | null }) => void;
  /** Called after each saved re-poll that a change signal asked for (Pulsar's consumer signal). */
  onRepoll?: (repoll: { changeCount: number; topicCount: number }) => void;
};

function logChanges(log: (line: string) => void, clusterName: string, changes: CycleResult["changes"]): void {
  for (const change of changes) {
    const ending = change.ending ? `, ${change.ending.toLowerCase().replace("_", " ")}` : "";
    log(
      `${clusterName}: ${change.kind} ${change.resourceKey} ${change.fromHolder ?? "-"} -> ${change.toHolder ?? "-"} (${change.cause}${ending}${change.isDuringGap ? ", during a gap" : ""})`,
    );
  }
}

/**
 * Polls one cluster, of any kind, until `signal` aborts (or the lease is lost: saveCycle throws
 * PollerDeposedError). Each cycle reads every watched thing once within the kind's budget; a
 * cycle that does not fit the interval is followed at once by the next, and its real length is
 * recorded. Between cycles the kind may wake the loop early (a change signal), and a kind may
 * hand back re-polls of what a signal named while a cycle is still reading: those are saved at
 * once (states and changes, no poll-run record) and the cycle goes on.
 */
export async function runSourcePoller<C extends BaseClusterConfig>(options: SourcePollerOptions<C>): Promise<void> {
  const { db, cluster, clusterId, epoch, pollerId, signal, log, kind: source } = options;
  const saved = await loadCycleStates(db, clusterId, source.stored);
  const written = WrittenRows.from(saved, source.stored);
  const cycles = await source.openCycles(cluster, saved, (line) => log(`${cluster.name}: ${line}`));
  // Written after the cycle's save: a deposed poller's read (its save throws) records nothing.
  const doubleRuns = createConcurrentHoldRecorder({ databaseUrl: options.databaseUrl, cluster: cluster.name, log: (line) => log(`${cluster.name}: ${line}`) });
  let previousCycleStart: number | null = null;
  let nextCycleDueMs = Date.now();
  let failures = NO_FAILURES;
  try {
    while (!signal.aborted) {
      const callStart = Date.now();
      const result = await cycles.run();
      if (result.isRepoll) {
        const changeCount = await saveCycle(db, {
          clusterId,
          epoch,
          states: result.states,
          isFullSweep: false,
          written,
          changes: result.changes,
          pollRun: null,
        });
        cycles.commit(result);
        logChanges(log, cluster.name, result.changes);
        if (result.concurrentHolds) await doubleRuns.record(result.concurrentHolds);
        if (cycles.describeSignal) await saveChangeSignal(db, clusterId, cycles.describeSignal());
        options.onRepoll?.({ changeCount, topicCount: result.targetCount });
        await cycles.waitForNext(nextCycleDueMs, signal);
        continue;
      }
      const cycleStart = result.startedAtMs ?? callStart;
      const metrics = getProcessMetrics();
      metrics.pollDuration.observe({ cluster: cluster.name, kind: cluster.kind }, (Date.now() - cycleStart) / 1000);
      if (result.discoveryMs !== null) metrics.discoveryDuration.observe({ cluster: cluster.name, kind: cluster.kind }, result.discoveryMs / 1000);
      const cycleMs = previousCycleStart === null ? null : cycleStart - previousCycleStart;
      previousCycleStart = cycleStart;
      const changeCount = await saveCycle(db, {
        clusterId,
        epoch,
        states: result.states,
        isFullSweep: result.isFullSweep,
        written,
        changes: result.changes,
        pollRun: {
          startedAt: new Date(cycleStart).toISOString(),
          finishedAt: new Date().toISOString(),
          cycleMs,
          topicCount: result.targetCount,
          requestCount: result.requestCount,
          errors: result.errors,
          pollerId,
        },
      });
      cycles.commit(result);
      logChanges(log, cluster.name, result.changes);
      if (result.concurrentHolds) await doubleRuns.record(result.concurrentHolds);
      const streak = nextFailureStreak(failures, result.errors, new Date().toISOString());
      failures = streak.streak;
      if (streak.line !== null) log(`${cluster.name}: ${streak.line}`);
      if (cycles.describeSignal) await saveChangeSignal(db, clusterId, cycles.describeSignal());
      options.onCycle?.({ changeCount, errorCount: result.errors.length, topicCount: result.targetCount, cycleMs });
      nextCycleDueMs = Math.max(cycleStart + cluster.pollIntervalMs, Date.now() + result.retryAfterMs);
      await cycles.waitForNext(nextCycleDueMs, signal);
    }
  } finally {
    await cycles.close();
    await doubleRuns.close();
  }
}
