import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { type DeploymentScope, deploymentsInScopeSql, windowEndSql } from "@/lib/deployments/window-sql";
import type { DeploymentBand } from "@/lib/violations/violation-types";

/** A deployment with its window's end, as SQL answers it (toBand makes it a DeploymentBand). */
export type BandRow = {
  id: bigint;
  service: string;
  version: string;
  environment: string;
  started_at: Date;
  finished_at: Date | null;
  window_end: Date;
  link: string | null;
};

/** The same columns as JSON: ids as text, times as PostgreSQL's ISO text. */
type BandJson = {
  id: string;
  service: string;
  version: string;
  environment: string;
  started_at: string;
  finished_at: string | null;
  window_end: string;
  link: string | null;
};

/**
 * Deployments whose classification window reaches into [startMs, endMs), by start: a month has
 * thousands. Raw SQL for the window's end, which must be computed exactly as the classification
 * computes it; one JSON value, which decodes several times faster than as many rows.
 */
export async function listDeploymentBands(db: SqlDb, scope: DeploymentScope): Promise<DeploymentBand[]> {
  const [result] = await db.$queryRaw<{ bands: BandJson[] }[]>(sql`
    select coalesce(json_agg(b order by b.started_at, b.id), '[]') as bands
    from (
      select d.id::text as id, d.service, d.version, d.environment, d.started_at, d.finished_at, ${windowEndSql(scope)} as window_end, d.link
      from deployment d
      where ${deploymentsInScopeSql(scope)}
    ) b`);
  return (result?.bands ?? []).map((b) => ({
    id: b.id,
    service: b.service,
    version: b.version,
    environment: b.environment,
    startedAt: new Date(b.started_at).toISOString(),
    finishedAt: b.finished_at === null ? null : new Date(b.finished_at).toISOString(),
    windowEnd: new Date(b.window_end).toISOString(),
    link: b.link,
  }));
}

export function toBand(row: BandRow): DeploymentBand {
  return {
    id: row.id.toString(),
    service: row.service,
    version: row.version,
    environment: row.environment,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    windowEnd: row.window_end.toISOString(),
    link: row.link,
  };
}
