import "server-only";

import type { Db } from "@/lib/db/client";
import { join, sql } from "@/lib/db/sql";
import { windowEndSql } from "@/lib/deployments/window-sql";
import { type BandRow, toBand } from "@/lib/deployments/list-deployment-bands";
import { listDeploymentChoices } from "@/lib/deployments/list-deployment-choices";
import type { DeploymentBand } from "@/lib/violations/violation-types";

export type DeploymentCoincidence = DeploymentBand & {
  description: string | null;
  /** Violations of the deployment's service inside its window (start to finish plus grace, in whole minutes). */
  violations: number;
};

export type DeploymentCoincidences = {
  from: string;
  to: string;
  graceMs: number;
  /** Deployments that started in the range and match the filters (the list shows at most `limit`). */
  total: number;
  limit: number;
  deployments: DeploymentCoincidence[];
  /** Filter choices: every service and environment with a deployment. */
  services: string[];
  environments: string[];
};

type Row = BandRow & { description: string | null; violations: number };

/**
 * Deployments that started in the range, newest first, each with the violations of its service
 * inside its window (the classification's whole minutes), summed from the rollup over its
 * primary key: a few dozen rows per deployment. Raw SQL for the window arithmetic the
 * classification shares.
 */
export async function listDeploymentCoincidences(
  db: Db,
  query: { fromMs: number; toMs: number; service: string | null; environment: string | null; limit: number; graceMs: number; nowMs?: number },
): Promise<DeploymentCoincidences> {
  const nowMs = query.nowMs ?? Date.now();
  const windowEnd = windowEndSql({ nowMs, graceMs: query.graceMs });
  const conditions = [
    sql`d.started_at >= ${new Date(query.fromMs).toISOString()}::timestamptz`,
    sql`d.started_at < ${new Date(query.toMs).toISOString()}::timestamptz`,
  ];
  if (query.service !== null) conditions.push(sql`d.service = ${query.service}`);
  if (query.environment !== null) conditions.push(sql`d.environment = ${query.environment}`);
  const where = join(conditions, " and ");

  const [rows, [countRow], choices] = await Promise.all([
    db.$queryRaw<Row[]>(sql`
      select d.id, d.service, d.version, d.environment, d.started_at, d.finished_at, d.link, d.description, x.window_end,
        (select coalesce(sum(vm.violations), 0)::int
         from violation_minute vm
         where vm.service = d.service and vm.bucket >= date_trunc('minute', d.started_at, 'UTC') and vm.bucket < x.window_end and vm.violations > 0) as violations
      from deployment d
      cross join lateral (select ${windowEnd} as window_end) x
      where ${where}
      order by d.started_at desc, d.id desc
      limit ${query.limit}`),
    db.$queryRaw<{ total: number }[]>(sql`select count(*)::int as total from deployment d where ${where}`),
    listDeploymentChoices(db),
  ]);
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    graceMs: query.graceMs,
    total: countRow?.total ?? 0,
    limit: query.limit,
    deployments: rows.map((row) => ({ ...toBand(row), description: row.description, violations: row.violations })),
    services: choices.services,
    environments: choices.environments,
  };
}
