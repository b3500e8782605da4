import "server-only";

import type { Db } from "@/lib/db/client";
import { sleep } from "@/lib/sleep";
import { runRetention, type RetentionSettings } from "@/lib/retention/run-retention";

/** How often the worker deletes expired raw events: an hour's worth is a few batches. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs retention now and then every interval until the signal aborts: for the worker process.
 * A failed run (database down) is logged and tried again at the next interval; it never ends
 * the loop, since the next run deletes what this one left.
 */
export async function runRetentionLoop(
  db: Db,
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
      if (result.deleted > 0 || result.deletedCounts > 0 || historyRows > 0 || result.isAborted) {
        log(
          `retention: deleted ${result.deleted} raw events and ${result.deletedCounts} count rows observed before ${result.cutoff} in ${result.batches} batches, ` +
            `${history.alerts} resolved alerts, ${history.notifications} delivered notifications and ${history.rangeSplits} ended Key_Shared splits, ${result.durationMs} ms${result.isAborted ? " (stopped)" : ""}`,
        );
      }
    } catch (error) {
      log(`retention: the run failed and will be retried in ${Math.round(intervalMs / 60_000)} min: ${(error as Error).message}`);
    }
    await sleep(intervalMs, signal);
  }
}
