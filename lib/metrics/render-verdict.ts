import type { HealthVerdict, VerdictStatus } from "@/lib/health/health-verdict";

// The verdict (lib/health/health-verdict.ts) as Prometheus series: the same numbers the header
// and the Alerts menu item show. Written directly: a handful of fixed series.

const STATUSES: VerdictStatus[] = ["ok", "warning", "critical", "unknown"];

export function renderVerdict(verdict: HealthVerdict): string {
  const lines = [
    "# HELP baton_alerts_firing Alerts firing now, by severity (the header's count).",
    "# TYPE baton_alerts_firing gauge",
    `baton_alerts_firing{severity="critical"} ${verdict.firing.critical}`,
    `baton_alerts_firing{severity="warning"} ${verdict.firing.warning}`,
    "# HELP baton_alerts_pending Alerts whose condition holds, not yet for their rule's for.",
    "# TYPE baton_alerts_pending gauge",
    `baton_alerts_pending ${verdict.pending}`,
    "# HELP baton_health_status 1 for Baton's verdict now (ok only when nothing fires; unknown: no worker evaluates the rules, or no database).",
    "# TYPE baton_health_status gauge",
    ...STATUSES.map((status) => `baton_health_status{status="${status}"} ${verdict.status === status ? 1 : 0}`),
  ];
  return `${lines.join("\n")}\n`;
}
