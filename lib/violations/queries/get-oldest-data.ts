import "server-only";

import type { Db } from "@/lib/db/client";

// The oldest data point a violations page shows: the page fits its default range to it
// (fitRangeToData). One probe of an index that leads with the time (the deployments' own is
// lib/deployments/get-oldest-deployment.ts).

/** The first minute with a counter event (the rollup keeps it also after retention), in epoch ms; null if none. */
export async function getOldestEventMs(db: Db): Promise<number | null> {
  const row = await db.violationMinute.findFirst({ select: { bucket: true }, orderBy: { bucket: "asc" } });
  return row?.bucket.getTime() ?? null;
}
