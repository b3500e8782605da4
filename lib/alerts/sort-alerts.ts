// The order of every alert list (the Alerts page, its API): firing, then pending, then resolved;
// within a state the most severe first; then by age, the newest first (for resolved ones, the
// latest resolved). Pure and client-safe.

import type { AlertSeverity, AlertState, AlertView } from "@/lib/alerts/alert-types";

const STATE_ORDER: Record<AlertState, number> = { firing: 0, pending: 1, resolved: 2 };
const SEVERITY_ORDER: Record<AlertSeverity, number> = { critical: 0, warning: 1 };

type Sortable = Pick<AlertView, "state" | "severity" | "activeAt" | "resolvedAt" | "id">;

export function compareAlerts(a: Sortable, b: Sortable): number {
  const age = (alert: Sortable) => Date.parse(alert.state === "resolved" && alert.resolvedAt !== null ? alert.resolvedAt : alert.activeAt);
  return STATE_ORDER[a.state] - STATE_ORDER[b.state] || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || age(b) - age(a) || a.id.localeCompare(b.id);
}

export function sortAlerts<T extends Sortable>(alerts: T[]): T[] {
  return alerts.sort(compareAlerts);
}
