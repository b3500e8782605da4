import "server-only";

import type { ViolationsConfig } from "@/lib/config";
import { raw, sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
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
  db: SqlDb,
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
  const batch = { size: settings.retentionBatchSize, pauseMs, signal };
  const events = await deleteRowsBefore(db, { table: "exclusivity_event_other_default", column: "observed_at" }, cutoff, batch);
  const violations = events.isAborted
    ? ABORTED
    : await deleteRowsBefore(db, { table: "exclusivity_event_violation_default", column: "observed_at" }, violationCutoff, batch);
  // Count rows past the retention can go too: the ingest refuses a minute that old, so a
  // re-sent minute can no longer be counted twice once its rows are deleted.
  const counts = violations.isAborted ? ABORTED : await deleteRowsBefore(db, { table: "exclusivity_count", column: "minute" }, cutoff, batch);
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

type DeleteProgress = { deleted: number; batches: number; isAborted: boolean };
const ABORTED: DeleteProgress = { deleted: 0, batches: 0, isAborted: true };

/** The tables retention deletes rows from, each with the time column its primary key leads with. */
type ExpiringTable =
  | { table: "exclusivity_event_other_default" | "exclusivity_event_violation_default"; column: "observed_at" }
  | { table: "exclusivity_count"; column: "minute" };

/**
 * Deletes the table's rows older than `before`, `batch.size` per statement (the subquery walks the
 * primary key from the oldest row), pausing between statements, until a statement deletes less
 * than a batch or the signal aborts.
 */
async function deleteRowsBefore(
  db: SqlDb,
  { table, column }: ExpiringTable,
  before: Date,
  batch: { size: number; pauseMs: number; signal: AbortSignal },
): Promise<DeleteProgress> {
  // Identifiers from the type above: no user input.
  const [name, time] = [raw(table), raw(column)];
  let deleted = 0;
  let batches = 0;
  while (!batch.signal.aborted) {
    const count = await db.$executeRaw(sql`
      delete from ${name}
      where ctid in (select ctid from ${name} where ${time} < ${before} order by ${time} limit ${batch.size})`);
    batches += 1;
    deleted += count;
    if (count < batch.size) return { deleted, batches, isAborted: false };
    await sleep(batch.pauseMs, batch.signal);
  }
  return { deleted, batches, isAborted: true };
}
