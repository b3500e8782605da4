import "server-only";

import { join, sql, type Sql, timestampSql } from "@/lib/db/sql";
import { OPEN_DEPLOYMENT_MAX_MS } from "@/lib/deployments/deployment-windows";

// A deployment's window (lib/deployments/deployment-windows.ts) in SQL, over the deployment table
// under the alias `d`: what every read of deployments against violations uses (the chart, the
// top lists, the drill-down, the deployments list, the metrics). Raw SQL because it needs
// PostgreSQL's ranges: range_agg merges each service's windows into one multirange, against
// which a rollup minute or an event's instant is tested in O(log n); Prisma's query API has
// neither. Windows are whole minutes, [start minute, minute of end + grace + 1 min), so a rollup
// minute and each raw event in it always classify alike.

export type DeploymentScope = {
  /** The minutes read: [startMs, endMs), whole minutes. */
  startMs: number;
  endMs: number;
  graceMs: number;
  nowMs: number;
  service: string | null;
  /** Only deployments of this environment count, when set. */
  environment: string | null;
};

const ms = (value: number) => sql`(${value}::double precision * interval '1 millisecond')`;

/** A deployment's end (alias d): its finish, or now but at most a day after its start. */
function deploymentEndSql(nowMs: number): Sql {
  return sql`greatest(d.started_at, coalesce(d.finished_at, least(${timestampSql(nowMs)}, d.started_at + ${ms(OPEN_DEPLOYMENT_MAX_MS)})))`;
}

/** The end of the grace period (alias d): the deployment's end plus the grace, to the millisecond. */
function graceEndSql(scope: Pick<DeploymentScope, "nowMs" | "graceMs">): Sql {
  return sql`(${deploymentEndSql(scope.nowMs)} + ${ms(scope.graceMs)})`;
}

/** The window's inclusive start (alias d): the minute the deployment started in. */
export const windowStartSql = sql`date_trunc('minute', d.started_at, 'UTC')`;

/** The window's exclusive end (alias d), as the API reports it. */
export function windowEndSql(scope: Pick<DeploymentScope, "nowMs" | "graceMs">): Sql {
  return sql`(date_trunc('minute', ${graceEndSql(scope)}, 'UTC') + interval '1 minute')`;
}

/** The window (alias d): [minute of the start, minute of the grace end + 1 minute). */
function windowRangeSql(scope: Pick<DeploymentScope, "nowMs" | "graceMs">): Sql {
  return sql`tstzrange(${windowStartSql}, ${windowEndSql(scope)}, '[)')`;
}

/** Deployments (alias d) whose window reaches into [startMs, endMs), with the scope's filters. */
export function deploymentsInScopeSql(scope: DeploymentScope): Sql {
  const conditions = [sql`d.started_at < ${timestampSql(scope.endMs)}`, sql`${windowEndSql(scope)} > ${timestampSql(scope.startMs)}`];
  if (scope.service !== null) conditions.push(sql`d.service = ${scope.service}`);
  if (scope.environment !== null) conditions.push(sql`d.environment = ${scope.environment}`);
  return join(conditions, " and ");
}

/** (service, w): each service's merged windows that reach into the scope. */
export function serviceWindowsSql(scope: DeploymentScope): Sql {
  return sql`
    select d.service, range_agg(${windowRangeSql(scope)}) as w
    from deployment d
    where ${deploymentsInScopeSql(scope)}
    group by d.service`;
}

/** (service, starts, ends): every deployment's window, unmerged (a minute two windows cover is in both). */
export function everyWindowSql(scope: Pick<DeploymentScope, "nowMs" | "graceMs">): Sql {
  return sql`select d.service, ${windowStartSql} as starts, ${windowEndSql(scope)} as ends from deployment d`;
}

/** (service, edge): the minutes where the scope's windows start or end, per deployment, before any merge. */
export function windowEdgesSql(scope: DeploymentScope): Sql {
  return sql`
    select d.service, ${windowStartSql} as edge from deployment d where ${deploymentsInScopeSql(scope)}
    union all
    select d.service, ${windowEndSql(scope)} as edge from deployment d where ${deploymentsInScopeSql(scope)}`;
}
