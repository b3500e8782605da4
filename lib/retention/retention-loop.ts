import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { sleep } from "@/lib/sleep";
import { runRetention, type RetentionSettings } from "@/lib/retention/run-retention";

/** How often the worker creates partitions ahead and drops expired ones. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs retention now and then every interval until the signal aborts: for the worker process.
 * A failed run (database down) is logged and tried again at the next interval; it never ends
 * the loop, since the next run deletes what this one left.
 */
export async function runRetentionLoop(
  db: SqlDb,
  settings: RetentionSettings,
  signal: AbortSignal,
  log: (line: string) => void,
  intervalMs: number = RETENTION_INTERVAL_MS,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const result = await runRetention(db, settings, signal);
      const history = result.deletedHistory;
      const historyRows = history.alerts + history.notifications + history.rangeSplits;
      if (
        result.createdPartitions > 0 ||
        result.droppedPartitions.length > 0 ||
        result.deleted > 0 ||
        result.deletedCounts > 0 ||
        historyRows > 0 ||
        result.isAborted
      ) {
        log(
          `retention: created ${result.createdPartitions} partitions, dropped ${result.droppedPartitions.length} (${result.droppedPartitions.join(", ") || "none"}; events before ${result.cutoff}, violations before ${result.violationCutoff}), ` +
            `deleted ${result.deleted} rows of the default partitions and ${result.deletedCounts} count rows in ${result.batches} batches, ` +
            `${history.alerts} resolved alerts, ${history.notifications} delivered notifications and ${history.rangeSplits} ended Key_Shared splits, ${result.durationMs} ms${result.isAborted ? " (stopped)" : ""}`,
        );
      }
    } catch (error) {
      log(`retention: the run failed and will be retried in ${Math.round(intervalMs / 60_000)} min: ${(error as Error).message}`);
    }
    await sleep(intervalMs, signal);
  }
}
