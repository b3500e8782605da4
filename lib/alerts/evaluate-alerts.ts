// One evaluation, pure: the conditions found now against the open alerts, as Prometheus's
// alerting rules do it. A new condition is pending; it fires once it has held for its rule's
// `for` (at once when `for` is 0), counted from when the condition began when the data says so
// (the poll that saw the holder go), else from this evaluation; a firing alert whose condition is gone is resolved; a pending
// one is dropped without a word. Firing and resolved are each notified once per incident; a
// firing alert is re-sent to Alertmanager every resendMs.

import type { AlertRuleConfig, AlertRuleName } from "@/lib/alerts/alert-config";
import type { AlertCondition, Evaluation, StoredAlert } from "@/lib/alerts/alert-types";
import { fingerprintOf } from "@/lib/alerts/fingerprint";

export type EvaluateInput = {
  nowMs: number;
  rules: Record<AlertRuleName, AlertRuleConfig>;
  /** The open (pending or firing) alerts, as stored. */
  open: StoredAlert[];
  conditions: AlertCondition[];
  resendMs: number;
};

export function evaluateAlerts(input: EvaluateInput): Evaluation {
  const { nowMs, rules } = input;
  const result: Evaluation = { alerts: [], dropped: [], transitions: [], notify: [], resend: [] };
  const openByFingerprint = new Map(input.open.map((alert) => [alert.fingerprint, alert]));
  const seen = new Set<string>();

  for (const condition of input.conditions) {
    const rule = rules[condition.labels.alertname];
    if (!rule?.isEnabled) continue;
    const fingerprint = fingerprintOf(condition.labels);
    if (seen.has(fingerprint)) continue; // the same place found twice: one alert
    seen.add(fingerprint);
    const previous = openByFingerprint.get(fingerprint);
    const alert: StoredAlert = previous
      ? { ...previous, severity: condition.severity, annotations: condition.annotations }
      : {
          id: null,
          fingerprint,
          labels: condition.labels,
          severity: condition.severity,
          annotations: condition.annotations,
          state: "pending",
          activeAt: Math.min(nowMs, condition.since ?? nowMs),
          firedAt: null,
          resolvedAt: null,
          lastSentAt: null,
        };
    if (!previous) result.transitions.push({ fingerprint, from: null, to: "pending", at: nowMs });
    if (alert.state === "pending" && nowMs - alert.activeAt >= rule.forMs) {
      alert.state = "firing";
      alert.firedAt = nowMs;
      alert.lastSentAt = nowMs;
      result.transitions.push({ fingerprint, from: "pending", to: "firing", at: nowMs });
      result.notify.push({ fingerprint, kind: "firing" });
    } else if (alert.state === "firing" && (alert.lastSentAt === null || nowMs - alert.lastSentAt >= input.resendMs)) {
      alert.lastSentAt = nowMs;
      result.resend.push(fingerprint);
    }
    result.alerts.push(alert);
  }

  for (const alert of input.open) {
    if (seen.has(alert.fingerprint)) continue;
    // A disabled rule's open alerts end as if their condition had cleared.
    if (alert.state === "pending") {
      result.dropped.push(alert);
      continue;
    }
    result.alerts.push({ ...alert, state: "resolved", resolvedAt: nowMs, lastSentAt: nowMs });
    result.transitions.push({ fingerprint: alert.fingerprint, from: "firing", to: "resolved", at: nowMs });
    result.notify.push({ fingerprint: alert.fingerprint, kind: "resolved" });
  }
  return result;
}
