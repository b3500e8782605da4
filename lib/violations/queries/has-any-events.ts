import "server-only";

import type { Db } from "@/lib/db/client";

/**
 * Whether any counter event was ever reported: the rollup keeps a row for every minute that had
 * one (also after retention), and finding one row costs an index probe, not a count.
 */
export async function hasAnyEvents(db: Db): Promise<boolean> {
  const row = await db.violationMinute.findFirst({ select: { bucket: true } });
  return row !== null;
}
