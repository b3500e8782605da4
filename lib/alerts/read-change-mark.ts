import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

/**
 * A mark that moves whenever a poller stores a holder change (the newest change's id: a
 * primary-key lookup, cheap enough to ask four times a second). The evaluator evaluates as soon
 * as it moves, rather than at its next interval.
 */
export async function readChangeMark(db: SqlDb): Promise<string> {
  const [row] = await db.$queryRaw<{ mark: bigint | null }[]>(sql`select max(id) as mark from holder_change`);
  return String(row?.mark ?? "");
}
