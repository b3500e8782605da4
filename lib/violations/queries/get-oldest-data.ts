import "server-only";

import type { Db } from "@/lib/db/client";

// The oldest data point a violations page shows: the page fits its default range to it
// (fitRangeToData). Each is one probe of an index that leads with the time.

/** The first minute with a counter event (the rollup keeps it also after retention), in epoch ms; null if none. */
export async function getOldestEventMs(db: Db): Promise<number | null> {
  const row = await db.violationMinute.findFirst({ select: { bucket: true }, orderBy: { bucket: "asc" } });
  return row?.bucket.getTime() ?? null;
}

/** When the first reported deployment started, in epoch ms; null if none. */
export async function getOldestDeploymentMs(db: Db): Promise<number | null> {
  const row = await db.deployment.findFirst({ select: { startedAt: true }, orderBy: { startedAt: "asc" } });
  return row?.startedAt.getTime() ?? null;
}
