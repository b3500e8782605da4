import "server-only";

import { join, type Sql, sql, timestampSql } from "@/lib/db/sql";
import type { DeploymentScope } from "@/lib/deployments/window-sql";

// The classification rule (lib/deployments/deployment-windows.ts) on the rollup, shared by the
// chart, the top lists and the drill-down: the rollup rows of a scope, tested against the
// deployments' windows (lib/deployments/window-sql.ts, which reads the deployments).

/** The minutes, services and deployments read (DeploymentScope), and the subscription, when set. */
export type ClassificationScope = DeploymentScope & { subscription: string | null };

/** Conditions on the rollup (alias vm) for the scope. */
export function rollupScopeSql(scope: ClassificationScope): Sql {
  const conditions = [sql`vm.bucket >= ${timestampSql(scope.startMs)}`, sql`vm.bucket < ${timestampSql(scope.endMs)}`];
  if (scope.service !== null) conditions.push(sql`vm.service = ${scope.service}`);
  if (scope.subscription !== null) conditions.push(sql`vm.subscription = ${scope.subscription}`);
  return join(conditions, " and ");
}

/** A rollup row's violations that were inside a deployment (aliases vm, w): all of them or none. */
export const insideViolationsSql = sql`case when vm.violations > 0 and vm.bucket <@ w.w then vm.violations else 0 end`;
