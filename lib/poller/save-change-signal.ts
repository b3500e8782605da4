import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

/**
 * Stores what a cluster's change signal is doing on its row, after each cycle and each re-poll it
 * caused, for the Clusters page (which runs in another process). One row, one statement.
 */
export async function saveChangeSignal(db: SqlDb, clusterId: number, status: Record<string, unknown>): Promise<void> {
  await db.$executeRaw(sql`update cluster set change_signal = ${JSON.stringify(status)}::jsonb, updated_at = now() where id = ${clusterId}`);
}
