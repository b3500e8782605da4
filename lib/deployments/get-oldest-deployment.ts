import "server-only";

import type { Db } from "@/lib/db/client";

/** When the first reported deployment started, in epoch ms; null if none. One probe of the deployment's time index. */
export async function getOldestDeploymentMs(db: Db): Promise<number | null> {
  const row = await db.deployment.findFirst({ select: { startedAt: true }, orderBy: { startedAt: "asc" } });
  return row?.startedAt.getTime() ?? null;
}
