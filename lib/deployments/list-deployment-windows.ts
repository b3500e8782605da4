import "server-only";

import type { DeploymentWindow } from "@/lib/board/board-types";
import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";

/** Deployments are looked up this far before the range: none runs longer. */
const DEPLOYMENT_LOOKBACK_MS = 86_400_000;

/** Deployments overlapping [fromMs, toMs], by start (over the deployment's time index): the bands of a holder timeline. */
export async function listDeploymentWindows(db: Db, range: { fromMs: number; toMs: number }): Promise<DeploymentWindow[]> {
  const rows = await db.$queryRaw<{ service: string; version: string; started_at: Date; finished_at: Date | null }[]>(sql`
    select service, version, started_at, finished_at from deployment
    where started_at <= ${new Date(range.toMs)} and started_at >= ${new Date(range.fromMs - DEPLOYMENT_LOOKBACK_MS)}
      and (finished_at is null or finished_at >= ${new Date(range.fromMs)})
    order by started_at`);
  return rows.map((d) => ({ service: d.service, version: d.version, startedAt: d.started_at.toISOString(), finishedAt: d.finished_at?.toISOString() ?? null }));
}
