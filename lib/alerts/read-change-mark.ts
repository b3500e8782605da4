import "server-only";

import type { Db } from "@/lib/db/client";

/**
 * A mark that moves whenever a poller stores a holder change (the newest change's id: a
 * primary-key lookup, cheap enough to ask four times a second). The evaluator evaluates as soon
 * as it moves, rather than at its next interval.
 */
export async function readChangeMark(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ mark: bigint | null }[]>`select max(id) as mark from holder_change`;
  return String(row?.mark ?? "");
}
