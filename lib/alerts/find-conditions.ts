// Which alert conditions hold now, from what the board already judged: the leaders' and the
// locks' health flags (lib/board/*-health-rules.ts: no holder, flapping, stuck, expiry while
// held, stale), the pollers' leases and failing cycles (as /api/health reads them: a cluster
// whose source does not answer is stale even with no resource to flag) and the violations
// outside deployments per service. Pure: the rules are not derived a second time here.

import type { AlertRuleConfig, AlertRuleName, AlertSeverity } from "@/lib/alerts/alert-config";
import type { AlertCondition, AlertLabels } from "@/lib/alerts/alert-types";
import type { HealthFlag, LeadersBoard } from "@/lib/board/board-types";
import { staleLimitMs } from "@/lib/board/health-rules";
import { lockHref, subscriptionHref } from "@/lib/board/links";
import type { LocksBoard } from "@/lib/board/lock-types";
import type { PollerStatus } from "@/lib/health/health-report";
import { CAUSES_TO_ACT_ON, type CauseCounts, causePhrase, VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";

export type ConditionInput = {
  nowMs: number;
  rules: Record<AlertRuleName, AlertRuleConfig>;
  linkBaseUrl: string;
  leaders: LeadersBoard;
  locks: LocksBoard;
  /** Every configured cluster, with its poll interval and its poller's lease. */
  clusters: { name: string; kind: string; pollIntervalMs: number; poller: PollerStatus | undefined }[];
  /** Services with their violations outside deployments in the violations rule's window, and their causes when read. */
  violations: { service: string; outside: number; causes?: CauseCounts }[];
};

/** A board's flag rule -> the alert rule it raises. */
const RULE_OF_FLAG: Partial<Record<HealthFlag["rule"], AlertRuleName>> = {
  "no-active-consumer": "no-holder",
  "no-holder": "no-holder",
  flapping: "flapping",
  "lock-churn": "flapping",
  "stuck-leader": "stuck",
  "stuck-holder": "stuck",
  "expired-while-held": "expired-while-held",
};

/** The given causes with their counts: "1 worker stalled while another took its key, 2 unexplained". */
function describeCauses(causes: CauseCounts, among: readonly ViolationCause[]): string {
  return among
    .filter((cause) => causes[cause] > 0)
    .map((cause) => `${causes[cause]} ${causePhrase(cause)}`)
    .join(", ");
}

const NOISE_CAUSES = VIOLATION_CAUSES.filter((cause) => cause !== "rollout" && !CAUSES_TO_ACT_ON.includes(cause));

/**
 * How a service's violations outside deployments alert, by the one rule the violations page
 * follows: those of a cause to act on (CAUSES_TO_ACT_ON) page at the rule's severity; handover
 * noise alone (failover overlaps) is a warning at most. Causes not read yet count as to act on.
 */
export function judgeViolations(
  input: { outside: number; causes?: CauseCounts },
  rule: Pick<AlertRuleConfig, "severity" | "threshold" | "windowMs">,
): { severity: AlertSeverity; description: string } | null {
  const { outside, causes } = input;
  if (outside <= rule.threshold) return null;
  const window = `in the last ${Math.round(rule.windowMs / 60_000)} min (more than ${rule.threshold})`;
  if (causes === undefined) return { severity: rule.severity, description: `${outside} violations outside deployments ${window}; causes not read` };
  const toActOn = CAUSES_TO_ACT_ON.reduce((sum, cause) => sum + causes[cause], 0);
  const noise = describeCauses(causes, NOISE_CAUSES);
  if (toActOn === 0)
    return {
      severity: "warning",
      description: `${outside} violations outside deployments ${window}, none to act on: ${noise || "none classified yet"} (a handover's brief overlap)`,
    };
  return {
    severity: rule.severity,
    description: `${outside} violations outside deployments ${window}; ${toActOn} to act on: ${describeCauses(causes, CAUSES_TO_ACT_ON)}${noise ? `; not to act on: ${noise}` : ""}`,
  };
}

const SUMMARY: Record<AlertRuleName, string> = {
  "no-holder": "No holder",
  flapping: "Flapping",
  stuck: "Stuck holder",
  "expired-while-held": "Lock expired while held",
  violations: "Violations outside deployments",
  stale: "Source stale",
  "no-poller": "No poller",
};

const parseMs = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export function findConditions(input: ConditionInput): AlertCondition[] {
  const { rules, linkBaseUrl: base } = input;
  const conditions: AlertCondition[] = [];
  const add = (labels: AlertLabels, summary: string, description: string, path: string, since: number | null, severity?: AlertSeverity) => {
    const rule = rules[labels.alertname];
    if (rule.isEnabled) conditions.push({ labels, severity: severity ?? rule.severity, annotations: { summary, description, link: `${base}${path}` }, since });
  };
  const stale = new Map<string, { count: number; since: number | null; detail: string }>();
  const noteStale = (cluster: string, flag: HealthFlag) => {
    const entry = stale.get(cluster) ?? { count: 0, since: null, detail: flag.detail };
    entry.count++;
    const since = parseMs(flag.since);
    if (since !== null && (entry.since === null || since < entry.since)) entry.since = since;
    stale.set(cluster, entry);
  };

  for (const group of input.leaders.subscriptions) {
    const path = subscriptionHref(group);
    for (const flag of group.flags) {
      if (flag.rule === "stale") {
        noteStale(group.cluster, flag);
        continue;
      }
      const rule = RULE_OF_FLAG[flag.rule];
      if (!rule) continue;
      const where = `${group.subscription} on ${group.topic} (${group.cluster})`;
      const since = rule === "no-holder" ? parseMs(group.lastChangeAt) : parseMs(flag.since);
      add(
        { alertname: rule, cluster: group.cluster, kind: "pulsar-subscription", resource: group.topic, subscription: group.subscription },
        `${SUMMARY[rule]}: ${where}`,
        `${flag.label}: ${flag.detail}`,
        path,
        since,
      );
    }
  }

  for (const lock of input.locks.locks) {
    const path = lockHref({ cluster: lock.cluster, key: lock.key });
    for (const flag of lock.flags) {
      if (flag.rule === "stale") {
        noteStale(lock.cluster, flag);
        continue;
      }
      const rule = RULE_OF_FLAG[flag.rule];
      if (!rule) continue;
      const since = rule === "no-holder" ? parseMs(lock.lastChange?.at ?? null) : parseMs(flag.since);
      add(
        { alertname: rule, cluster: lock.cluster, kind: lock.resourceKind.toLowerCase().replace(/_/g, "-"), resource: lock.key },
        `${SUMMARY[rule]}: ${lock.key} (${lock.cluster})`,
        `${flag.label}: ${flag.detail}`,
        path,
        since,
      );
    }
  }

  for (const cluster of input.clusters) {
    const clusterPath = `/?${new URLSearchParams({ cluster: cluster.name })}`;
    const entry = stale.get(cluster.name);
    const failingSince = parseMs(cluster.poller?.failingSince ?? null);
    if (entry) {
      const what = `${entry.count} ${entry.count === 1 ? "resource" : "resources"}`;
      add(
        { alertname: "stale", cluster: cluster.name, kind: cluster.kind },
        `${SUMMARY.stale}: ${cluster.name}`,
        `${what} of ${cluster.name} not current: ${entry.detail}`,
        clusterPath,
        entry.since,
      );
    } else if (failingSince !== null) {
      // No resource to flag (none was ever read, or none is left), yet the source does not answer:
      // the same rule, so that an unreachable cluster is not silent for want of rows.
      const description = `polls of ${cluster.name} fail and read nothing since ${new Date(failingSince).toISOString()}: ${cluster.poller?.lastError ?? "no error recorded"}`;
      add({ alertname: "stale", cluster: cluster.name, kind: cluster.kind }, `${SUMMARY.stale}: ${cluster.name}`, description, clusterPath, failingSince);
    }
    // The lease heartbeats every 2 s; silence past the staleness limit means nobody polls.
    const heartbeat = parseMs(cluster.poller?.heartbeatAt ?? null);
    const limit = staleLimitMs(cluster.pollIntervalMs, null);
    if (heartbeat === null || input.nowMs - heartbeat > limit) {
      const description =
        heartbeat === null
          ? `no Baton worker has ever held the poller lease of ${cluster.name}: is the worker running?`
          : `the poller lease of ${cluster.name} has not been renewed since ${new Date(heartbeat).toISOString()} (by ${cluster.poller?.pollerId}): is the worker running?`;
      add(
        { alertname: "no-poller", cluster: cluster.name, kind: cluster.kind },
        `${SUMMARY["no-poller"]}: ${cluster.name}`,
        description,
        "/settings/clusters",
        heartbeat === null ? null : heartbeat + limit,
      );
    }
  }

  for (const service of input.violations) {
    const judged = judgeViolations(service, rules.violations);
    if (judged === null) continue;
    add(
      { alertname: "violations", service: service.service },
      `${SUMMARY.violations}: ${service.service}`,
      judged.description,
      `/violations?${new URLSearchParams({ service: service.service })}`,
      null,
      judged.severity,
    );
  }
  return conditions;
}
