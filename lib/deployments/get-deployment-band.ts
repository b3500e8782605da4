import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { deploymentWhere } from "@/lib/deployments/deployment-ref";
import type { BandRow } from "@/lib/deployments/list-deployment-bands";
import { windowEndSql } from "@/lib/deployments/window-sql";

/** One deployment (Baton id or the client's id) with its window's end, and its description; null when there is none. */
export async function getDeploymentBand(
  db: Db,
  ref: string,
  scope: { nowMs: number; graceMs: number },
): Promise<{ row: BandRow; description: string | null } | null> {
  const found = await db.deployment.findUnique({ where: deploymentWhere(ref), select: { id: true, description: true } });
  if (!found) return null;
  const [row] = await db.$queryRaw<BandRow[]>(sql`
    select d.id, d.service, d.version, d.environment, d.started_at, d.finished_at, ${windowEndSql(scope)} as window_end, d.link
    from deployment d where d.id = ${found.id}`);
  return row ? { row, description: found.description } : null;
}
