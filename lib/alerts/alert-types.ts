// The alerts' shapes: what the rules find (conditions), what is stored (alert states) and what
// the Alerts page and its API get back. Client-safe.

import type { AlertRuleName, AlertSeverity } from "@/lib/alerts/alert-config";

export type { AlertRuleName, AlertSeverity };

export type AlertState = "pending" | "firing" | "resolved";

/** What identifies an alert: the rule (alertname) and where it is. The fingerprint hashes these. */
export type AlertLabels = {
  alertname: AlertRuleName;
  cluster?: string;
  /** The resource's kind, e.g. pulsar-subscription, redis-lock. */
  kind?: string;
  /** The topic, the lock key. */
  resource?: string;
  subscription?: string;
  service?: string;
};

export type AlertAnnotations = {
  summary: string;
  description: string;
  /** The Baton page that explains it (absolute). */
  link: string;
};

/** A rule's condition that holds now, at one place. */
export type AlertCondition = {
  labels: AlertLabels;
  severity: AlertSeverity;
  annotations: AlertAnnotations;
  /** When the condition began, if the data says (a holder lost, stale since): `for` counts from there. */
  since?: number | null;
};

/** An alert as stored: one incident of one fingerprint, from pending to resolved. Times are epoch ms. */
export type StoredAlert = {
  id: string | null;
  fingerprint: string;
  labels: AlertLabels;
  severity: AlertSeverity;
  annotations: AlertAnnotations;
  state: AlertState;
  /** When the condition was first seen (pending since). */
  activeAt: number;
  firedAt: number | null;
  resolvedAt: number | null;
  /** The last time it was sent to Alertmanager (firing or resolved). */
  lastSentAt: number | null;
};

export type NotificationKind = "firing" | "resolved";

/** A state change, as the history keeps it. */
export type AlertTransition = { fingerprint: string; from: AlertState | null; to: AlertState; at: number };

/** What one evaluation decided: the alerts as they are now, what changed, what to send where. */
export type Evaluation = {
  /** Open alerts after this evaluation plus the ones it resolved or dropped. */
  alerts: StoredAlert[];
  /** Pending alerts whose condition cleared before they fired: deleted, never sent. */
  dropped: StoredAlert[];
  transitions: AlertTransition[];
  /** To every receiver: firing once per incident, resolved once. */
  notify: { fingerprint: string; kind: NotificationKind }[];
  /** To Alertmanager only: still firing, re-sent so that it does not resolve it on its own. */
  resend: string[];
};

/** One alert as the Alerts page and GET /api/v1/alerts show it. Times are ISO strings. */
export type AlertView = {
  id: string;
  fingerprint: string;
  rule: AlertRuleName;
  labels: AlertLabels;
  severity: AlertSeverity;
  state: AlertState;
  summary: string;
  description: string;
  link: string;
  activeAt: string;
  firedAt: string | null;
  resolvedAt: string | null;
  history: { state: AlertState; at: string }[];
};
