import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

/**
 * Partitions (an hour of events, a day of violations) are created this many days ahead of today (UTC). Ingest accepts an event at
 * most a day ahead of now, so three days leave the worker two days of downtime before any event
 * lands in a DEFAULT partition (where it is kept all the same, and moved out when its day's
 * partition is created).
 */
export const PARTITION_DAYS_AHEAD = 3;

const DAY_MS = 86_400_000;

/** The UTC day (YYYY-MM-DD) of an instant. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Creates the partitions of both sub-trees (a day of violations, the 24 hours of the other events)
 * from yesterday to PARTITION_DAYS_AHEAD days after today, by `nowMs`, for those days and hours
 * that have none; returns how many partitions it created. Yesterday too: an event from just before
 * midnight may arrive after it. Rows of a new day or hour already in a DEFAULT partition move into
 * it (the SQL function does that, in one transaction). The work is in the SQL function of the migration
 * (baton_ensure_event_partitions), which the migration itself uses for the days a migrated store
 * holds.
 */
export async function ensureEventPartitions(db: SqlDb, nowMs: number): Promise<number> {
  const from = utcDay(nowMs - DAY_MS);
  const to = utcDay(nowMs + PARTITION_DAYS_AHEAD * DAY_MS);
  const [row] = await db.$queryRaw<{ created: number }[]>(sql`select baton_ensure_event_partitions(${from}::date, ${to}::date) as created`);
  return row?.created ?? 0;
}
