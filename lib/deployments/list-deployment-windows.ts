import "server-only";

import type { DeploymentWindow } from "@/lib/board/board-types";
import type { Db } from "@/lib/db/client";
import { sql, type Sql } from "@/lib/db/sql";
import { OPEN_DEPLOYMENT_MAX_MS } from "@/lib/deployments/deployment-windows";

// The deployments the holder pages show beside the holders: the bands of a timeline, and those
// of the leaders board. Both as DeploymentWindow (lib/board/board-types.ts).

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

/**
 * The board's deployments, as one JSON array of DeploymentWindow (times as PostgreSQL's ISO
 * text), a scalar subquery for a statement of the board's own: those that overlap
 * [fromMs, nowMs], an unfinished one only while it started less than a day ago.
 */
export function boardDeploymentsJsonSql(range: { fromMs: number; nowMs: number }): Sql {
  return sql`(select coalesce(json_agg(json_build_object('service', d.service, 'version', d.version, 'startedAt', d.started_at, 'finishedAt', d.finished_at)), '[]')
    from deployment d
    where d.started_at <= ${new Date(range.nowMs)}
      and (d.finished_at >= ${new Date(range.fromMs)} or (d.finished_at is null and d.started_at > ${new Date(range.nowMs - OPEN_DEPLOYMENT_MAX_MS)})))`;
}
