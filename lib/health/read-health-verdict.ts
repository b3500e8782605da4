import "server-only";

import type { AlertRuleName, AlertSeverity } from "@/lib/alerts/alert-config";
import { EVALUATOR_LEASE_ID } from "@/lib/alerts/evaluator-lease";
import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { type FiringAlert, type HealthVerdict, judgeHealth } from "@/lib/health/health-verdict";

type OpenRow = { rule: string; severity: string; state: string; cluster: string | null; summary: string };

/**
 * Reads the open alerts and the evaluator's heartbeat, and judges the one verdict
 * (lib/health/health-verdict.ts). With the database unreachable, says so instead.
 */
export async function readHealthVerdict(db: SqlDb, database: { isReachable: boolean; reason: string | null }, nowMs = Date.now()): Promise<HealthVerdict> {
  if (!database.isReachable) return judgeHealth({ nowMs, database, firing: [], pending: 0, evaluatorHeartbeatMs: null });
  const [open, lease] = await Promise.all([
    db.$queryRaw<OpenRow[]>(sql`
      select a.rule, a.severity, a.state, a.labels->>'cluster' as cluster, a.summary from alert a
      where a.state in ('firing', 'pending') order by a.active_at`),
    db.$queryRaw<{ heartbeat_at: Date }[]>(sql`select heartbeat_at from alert_evaluator_lease where id = ${EVALUATOR_LEASE_ID}`),
  ]);
  // The alert table's rule and severity columns hold what the evaluator wrote from ALERT_RULE_NAMES and AlertSeverity.
  const firing: FiringAlert[] = open
    .filter((row) => row.state === "firing")
    .map((row) => ({ rule: row.rule as AlertRuleName, severity: row.severity as AlertSeverity, cluster: row.cluster, summary: row.summary }));
  return judgeHealth({ nowMs, database, firing, pending: open.length - firing.length, evaluatorHeartbeatMs: lease[0]?.heartbeat_at.getTime() ?? null });
}
