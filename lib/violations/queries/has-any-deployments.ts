import "server-only";

import type { Db } from "@/lib/db/client";

/** Whether any deployment was ever reported (one index probe). */
export async function hasAnyDeployments(db: Db): Promise<boolean> {
  const row = await db.deployment.findFirst({ select: { id: true } });
  return row !== null;
}
