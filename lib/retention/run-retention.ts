import "server-only";

import type { ViolationsConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { deleteExpiredHistory, type ExpiredHistoryResult } from "@/lib/retention/delete-expired-history";
import { dropExpiredPartitions } from "@/lib/retention/drop-expired-partitions";
import { ensureEventPartitions } from "@/lib/retention/ensure-event-partitions";
import { sleep } from "@/lib/sleep";

/** Between two batches: lets ingest writes, autovacuum and the checkpointer keep up. */
export const RETENTION_PAUSE_MS = 250;

export type RetentionSettings = Pick<ViolationsConfig, "retentionDays" | "violationRetentionDays" | "retentionBatchSize">;

export type RetentionResult = {
  /** Raw events that are not violations observed before this instant are gone (their whole hour). */
  cutoff: string;
  /** The same for violations, which are kept longer. */
  violationCutoff: string;
  /** Partitions (hours and days) created ahead (and for yesterday) by this run. */
  createdPartitions: number;
  /** Partitions dropped by this run, oldest first. */
  droppedPartitions: string[];
  /** Rows deleted from the DEFAULT partitions (events of days that had no partition yet): rare. */
  deleted: number;
  /** Rows of per-minute counts (exclusivity_count) older than the cutoff deleted. */
  deletedCounts: number;
  /** Resolved alerts, delivered notifications and ended Key_Shared splits older than the cutoff. */
  deletedHistory: ExpiredHistoryResult;
  batches: number;
  durationMs: number;
  /** True when the signal stopped the run before every old row was deleted. */
  isAborted: boolean;
};

/**
 * Keeps the partitioned event store in shape: creates the partitions ahead
 * (ensureEventPartitions), drops the partitions (hours of events, days of violations) past their retention (`retentionDays` for
 * events that are not violations, `violationRetentionDays` for violations), and deletes the few
 * expired rows of the DEFAULT partitions and of the per-minute counts, at most
 * `retentionBatchSize` rows per statement with a pause between statements, until none is left or
 * the signal aborts. The per-minute rollup is kept, so charts still cover older ranges.
 *
 * Never blocks ingestion for long: a DROP waits at most a couple of seconds for its lock and
 * touches only days far older than anything being written; each delete batch is its own short
 * transaction. Raw SQL because Prisma's deleteMany has no LIMIT.
 */
export async function runRetention(
  db: Db,
  settings: RetentionSettings,
  signal: AbortSignal,
  options: { nowMs?: number; pauseMs?: number } = {},
): Promise<RetentionResult> {
  const started = performance.now();
  const nowMs = options.nowMs ?? Date.now();
  const cutoff = new Date(nowMs - settings.retentionDays * 86_400_000);
  const violationCutoff = new Date(nowMs - settings.violationRetentionDays * 86_400_000);
  const pauseMs = options.pauseMs ?? RETENTION_PAUSE_MS;
  const createdPartitions = await ensureEventPartitions(db, nowMs);
  const droppedPartitions = await dropExpiredPartitions(db, { events: cutoff, violations: violationCutoff });
  // The subqueries walk the primary key (observed_at first) from the oldest row.
  const events = await deleteInBatches(
    () =>
      db.$executeRaw(Prisma.sql`
        delete from exclusivity_event_other_default
        where ctid in (select ctid from exclusivity_event_other_default where observed_at < ${cutoff} order by observed_at limit ${settings.retentionBatchSize})`),
    settings.retentionBatchSize,
    pauseMs,
    signal,
  );
  const violations = events.isAborted
    ? { deleted: 0, batches: 0, isAborted: true }
    : await deleteInBatches(
        () =>
          db.$executeRaw(Prisma.sql`
            delete from exclusivity_event_violation_default
            where ctid in (select ctid from exclusivity_event_violation_default where observed_at < ${violationCutoff} order by observed_at limit ${settings.retentionBatchSize})`),
        settings.retentionBatchSize,
        pauseMs,
        signal,
      );
  // Count rows past the retention can go too: the ingest refuses a minute that old, so a
  // re-sent minute can no longer be counted twice once its rows are deleted.
  const counts = violations.isAborted
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
    violationCutoff: violationCutoff.toISOString(),
    createdPartitions,
    droppedPartitions,
    deleted: events.deleted + violations.deleted,
    deletedCounts: counts.deleted,
    deletedHistory: history,
    batches: events.batches + violations.batches,
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
