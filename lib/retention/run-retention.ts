import "server-only";

import type { ViolationsConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { deleteExpiredHistory, type ExpiredHistoryResult } from "@/lib/retention/delete-expired-history";
import { sleep } from "@/lib/sleep";

/** Between two batches: lets ingest writes, autovacuum and the checkpointer keep up. */
export const RETENTION_PAUSE_MS = 250;

export type RetentionSettings = Pick<ViolationsConfig, "retentionDays" | "retentionBatchSize">;

export type RetentionResult = {
  /** Raw events observed before this instant were deleted. */
  cutoff: string;
  deleted: number;
  /** Rows of per-minute counts (exclusivity_count) older than the cutoff deleted. */
  deletedCounts: number;
  /** Resolved alerts, delivered notifications and ended Key_Shared splits older than the cutoff. */
  deletedHistory: ExpiredHistoryResult;
  batches: number;
  durationMs: number;
  /** True when the signal stopped the run before every old event was deleted. */
  isAborted: boolean;
};

/**
 * Deletes raw counter events observed more than `retentionDays` ago, oldest first, at most
 * `retentionBatchSize` rows per statement with a pause between statements, until none is left
 * or the signal aborts. The per-minute rollup is kept, so charts still cover older ranges.
 *
 * Never blocks ingestion: each batch is its own short transaction, and it touches only rows
 * far older than anything being written (inserts and these deletes share no row, and the
 * rollup table is not touched). Raw SQL because Prisma's deleteMany has no LIMIT: an unbounded
 * delete of a month of events would hold its locks and bloat WAL for minutes.
 */
export async function runRetention(
  db: Db,
  settings: RetentionSettings,
  signal: AbortSignal,
  options: { nowMs?: number; pauseMs?: number } = {},
): Promise<RetentionResult> {
  const started = performance.now();
  const cutoff = new Date((options.nowMs ?? Date.now()) - settings.retentionDays * 86_400_000);
  const pauseMs = options.pauseMs ?? RETENTION_PAUSE_MS;
  // The subquery walks the observed_at index from the oldest event: each batch finds its rows
  // without a scan, and an interrupted run has still removed the oldest.
  const events = await deleteInBatches(
    () =>
      db.$executeRaw(Prisma.sql`
        delete from exclusivity_event
        where id in (select id from exclusivity_event where observed_at < ${cutoff} order by observed_at limit ${settings.retentionBatchSize})`),
    settings.retentionBatchSize,
    pauseMs,
    signal,
  );
  // Count rows past the retention can go too: the ingest refuses a minute that old, so a
  // re-sent minute can no longer be counted twice once its rows are deleted.
  const counts = events.isAborted
    ? { deleted: 0, batches: 0, isAborted: true }
    : await deleteInBatches(
        () =>
          db.$executeRaw(Prisma.sql`
            delete from exclusivity_count
            where ctid in (select ctid from exclusivity_count where minute < ${cutoff} order by minute limit ${settings.retentionBatchSize})`),
        settings.retentionBatchSize,
        pauseMs,
        signal,
      );
  const history = counts.isAborted ? { alerts: 0, notifications: 0, rangeSplits: 0 } : await deleteExpiredHistory(db, cutoff);
  return {
    cutoff: cutoff.toISOString(),
    deleted: events.deleted,
    deletedCounts: counts.deleted,
    deletedHistory: history,
    batches: events.batches,
    durationMs: Math.round(performance.now() - started),
    isAborted: counts.isAborted,
  };
}

/** Runs a bounded delete until it deletes less than a batch or the signal aborts, pausing between batches. */
async function deleteInBatches(deleteBatch: () => Promise<number>, batchSize: number, pauseMs: number, signal: AbortSignal): Promise<{ deleted: number; batches: number; isAborted: boolean }> {
  let deleted = 0;
  let batches = 0;
  while (!signal.aborted) {
    const count = await deleteBatch();
    batches += 1;
    deleted += count;
    if (count < batchSize) return { deleted, batches, isAborted: false };
    await sleep(pauseMs, signal);
  }
  return { deleted, batches, isAborted: true };
}
