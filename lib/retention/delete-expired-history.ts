import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

export type ExpiredHistoryResult = {
  /** Resolved alerts (with their transitions, notifications and deliveries) resolved before the cutoff. */
  alerts: number;
  /** Delivered notifications of alerts still open (Alertmanager re-sends of a long firing) delivered before the cutoff. */
  notifications: number;
  /** Key_Shared range splits that ended before the cutoff: no violation still stored can fall in them. */
  rangeSplits: number;
};

/**
 * Deletes the history kept beside the raw events once it is older than the same retention: an
 * alert resolved before the cutoff, a notification delivered before it, a Key_Shared split that
 * ended before it. What is still open (a firing alert, an undelivered notification, the current
 * split) is never deleted. These tables hold thousands of rows, not millions: one statement each.
 */
export async function deleteExpiredHistory(db: SqlDb, cutoff: Date): Promise<ExpiredHistoryResult> {
  const alerts = await db.$executeRaw(sql`delete from alert where state = 'resolved' and resolved_at < ${cutoff}`);
  const notifications = await db.$executeRaw(sql`delete from alert_notification where delivered_at < ${cutoff}`);
  const rangeSplits = await db.$executeRaw(sql`delete from key_shared_range_split where valid_to < ${cutoff}`);
  return { alerts, notifications, rangeSplits };
}
