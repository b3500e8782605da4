import "server-only";

import { join, sql, type Sql } from "@/lib/db/sql";
import { OPEN_DEPLOYMENT_MAX_MS } from "@/lib/violations/deployment-windows";

// The classification rule (lib/violations/deployment-windows.ts) in SQL, shared by the chart,
// the top lists, the drill-down and the deployments list. Raw SQL because it needs
// PostgreSQL's ranges: range_agg merges each service's windows into one multirange, against
// which a rollup minute or an event's instant is tested in O(log n); Prisma's query API has
// neither. Windows are whole minutes, [start minute, minute of end + grace + 1 min), so a rollup
// minute and each raw event in it always classify alike.

export type ClassificationScope = {
  /** The minutes read: [startMs, endMs), whole minutes. */
  startMs: number;
  endMs: number;
  graceMs: number;
  nowMs: number;
  service: string | null;
  subscription: string | null;
  /** Only deployments of this environment classify, when set. */
  environment: string | null;
};

const ms = (value: number) => sql`(${value}::double precision * interval '1 millisecond')`;
export const timestampSql = (value: number) => sql`${new Date(value).toISOString()}::timestamptz`;

/** A deployment's end for classification (alias d): its finish, or now but at most a day after its start. */
function deploymentEndSql(nowMs: number): Sql {
  return sql`greatest(d.started_at, coalesce(d.finished_at, least(${timestampSql(nowMs)}, d.started_at + ${ms(OPEN_DEPLOYMENT_MAX_MS)})))`;
}

/** The end of the grace period (alias d): the deployment's end plus the grace, to the millisecond. */
function graceEndSql(scope: Pick<ClassificationScope, "nowMs" | "graceMs">): Sql {
  return sql`(${deploymentEndSql(scope.nowMs)} + ${ms(scope.graceMs)})`;
}

/** The classification window (alias d): [minute of the start, minute of the grace end + 1 minute). */
function windowRangeSql(scope: Pick<ClassificationScope, "nowMs" | "graceMs">): Sql {
  return sql`tstzrange(date_trunc('minute', d.started_at, 'UTC'), date_trunc('minute', ${graceEndSql(scope)}, 'UTC') + interval '1 minute', '[)')`;
}

/** The window's exclusive end (alias d), as the API reports it. */
export function windowEndSql(scope: Pick<ClassificationScope, "nowMs" | "graceMs">): Sql {
  return sql`(date_trunc('minute', ${graceEndSql(scope)}, 'UTC') + interval '1 minute')`;
}

/** Deployments (alias d) whose window reaches into [startMs, endMs), with the scope's filters. */
export function deploymentsInScopeSql(scope: ClassificationScope): Sql {
  const conditions = [sql`d.started_at < ${timestampSql(scope.endMs)}`, sql`${windowEndSql(scope)} > ${timestampSql(scope.startMs)}`];
  if (scope.service !== null) conditions.push(sql`d.service = ${scope.service}`);
  if (scope.environment !== null) conditions.push(sql`d.environment = ${scope.environment}`);
  return join(conditions, " and ");
}

/** (service, w): each service's merged classification windows that reach into the scope. */
export function serviceWindowsSql(scope: ClassificationScope): Sql {
  return sql`
    select d.service, range_agg(${windowRangeSql(scope)}) as w
    from deployment d
    where ${deploymentsInScopeSql(scope)}
    group by d.service`;
}

/** Conditions on the rollup (alias vm) for the scope. */
export function rollupScopeSql(scope: ClassificationScope): Sql {
  const conditions = [sql`vm.bucket >= ${timestampSql(scope.startMs)}`, sql`vm.bucket < ${timestampSql(scope.endMs)}`];
  if (scope.service !== null) conditions.push(sql`vm.service = ${scope.service}`);
  if (scope.subscription !== null) conditions.push(sql`vm.subscription = ${scope.subscription}`);
  return join(conditions, " and ");
}

/** A rollup row's violations that were inside a deployment (aliases vm, w): all of them or none. */
export const insideViolationsSql = sql`case when vm.violations > 0 and vm.bucket <@ w.w then vm.violations else 0 end`;
