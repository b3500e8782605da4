import "server-only";

import type { AlertCondition } from "@/lib/alerts/alert-types";
import { findConditions } from "@/lib/alerts/find-conditions";
import type { Config } from "@/lib/config";
import type { SqlDb } from "@/lib/db/sql-db";
import { readPollerStatus } from "@/lib/health/read-poller-status";
import { ALL_LEADERS, listLeaders } from "@/lib/subscriptions/list-leaders";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import { getTopViolations } from "@/lib/violations/queries/get-top-violations";
import { getViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import type { CauseCounts } from "@/lib/violations/cause-words";

/** Services the violations rule looks at, at most (the busiest by violations outside deployments). */
const MAX_SERVICES = 1_000;

/** Violations whose causes an alert's description counts, at most per service (the latest). */
const CAUSE_SAMPLE = 1_000;

/**
 * The causes of the violations of each service above the rule's threshold (a handful: only those
 * that alert), so that the alert says which kind they are, in the words the pages use.
 */
async function readCauses(db: SqlDb, config: Config, services: readonly { name: string; outside: number }[], nowMs: number): Promise<Map<string, CauseCounts>> {
  const rule = config.alerts.rules.violations;
  const { drilldownWindowMs, deploymentGraceMs, producerRouting } = config.violations;
  const alerting = services.filter((s) => s.outside > rule.threshold);
  const answers = await Promise.all(
    alerting.map((s) =>
      getViolationCauses(
        db,
        { fromMs: nowMs - rule.windowMs, toMs: nowMs, service: s.name, subscription: null, cause: null, limit: CAUSE_SAMPLE },
        { windowMs: drilldownWindowMs, graceMs: deploymentGraceMs, producerRouting, nowMs },
      ),
    ),
  );
  return new Map(alerting.map((s, i) => [s.name, answers[i]!.counts]));
}

/** Reads the boards, the pollers' leases and the violations, all at once, and finds the conditions that hold. */
export async function readConditions(db: SqlDb, config: Config, nowMs: number): Promise<AlertCondition[]> {
  const { rules } = config.alerts;
  const clusterNames = config.clusters.map((c) => c.name);
  const violationsRule = rules.violations;
  const [leaders, locks, pollers, violations] = await Promise.all([
    listLeaders(db, { clusterNames, thresholds: config.board, query: ALL_LEADERS, nowMs }),
    listLocks(db, { clusterNames, thresholds: config.board, query: ALL_LOCKS, nowMs }),
    readPollerStatus(db, clusterNames),
    violationsRule.isEnabled
      ? getTopViolations(db, {
          fromMs: nowMs - violationsRule.windowMs,
          toMs: nowMs,
          timeZone: "UTC",
          service: null,
          subscription: null,
          environment: null,
          graceMs: config.violations.deploymentGraceMs,
          nowMs,
          limit: MAX_SERVICES,
          ranking: "outside",
          lists: ["services"],
        })
      : null,
  ]);
  const services = violations?.services ?? [];
  const causes = await readCauses(db, config, services, nowMs);
  return findConditions({
    nowMs,
    rules,
    linkBaseUrl: config.alerts.linkBaseUrl,
    leaders,
    locks,
    clusters: config.clusters.map((c) => ({ name: c.name, kind: c.kind, pollIntervalMs: c.pollIntervalMs, poller: pollers.get(c.name) })),
    violations: services.map((s) => ({ service: s.name, outside: s.outside, causes: causes.get(s.name) })),
  });
}
