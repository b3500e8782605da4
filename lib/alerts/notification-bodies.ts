import { createHmac } from "node:crypto";

import type { AlertLabels, NotificationKind, StoredAlert } from "@/lib/alerts/alert-types";

// What each receiver is sent, pure: Alertmanager's v2 alerts, Baton's documented webhook body
// (docs/alerts.md), and Slack's incoming-webhook message.

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function labelsOf(alert: StoredAlert): Record<string, string> {
  const labels: Record<string, string> = { severity: alert.severity };
  for (const [key, value] of Object.entries(alert.labels as AlertLabels)) if (typeof value === "string" && value !== "") labels[key] = value;
  return labels;
}

/**
 * One alert for `POST /api/v2/alerts`, as Prometheus sends it: startsAt when it fired; endsAt
 * the resolution, or while firing a time ahead (4 resend intervals) that a re-send pushes on,
 * so that Alertmanager resolves it by itself if Baton goes silent. The alert's stored state
 * decides, so a late retry of a firing notification cannot reopen a resolved alert.
 */
export function alertmanagerBody(alert: StoredAlert, nowMs: number, validForMs: number): unknown[] {
  const endsAt = alert.state === "resolved" ? alert.resolvedAt! : nowMs + validForMs;
  return [
    {
      labels: labelsOf(alert),
      annotations: { summary: alert.annotations.summary, description: alert.annotations.description, link: alert.annotations.link },
      startsAt: iso(alert.firedAt ?? alert.activeAt),
      endsAt: iso(endsAt),
      generatorURL: alert.annotations.link,
    },
  ];
}

/** Baton's webhook body: one notification of one alert. `id` is the same on every retry of it. */
export function webhookBody(alert: StoredAlert, kind: NotificationKind, notificationId: string, nowMs: number): unknown {
  return {
    version: "1",
    id: notificationId,
    status: kind,
    sentAt: iso(nowMs),
    alert: {
      fingerprint: alert.fingerprint,
      rule: alert.labels.alertname,
      severity: alert.severity,
      labels: labelsOf(alert),
      summary: alert.annotations.summary,
      description: alert.annotations.description,
      link: alert.annotations.link,
      activeAt: iso(alert.activeAt),
      firedAt: iso(alert.firedAt),
      resolvedAt: kind === "resolved" ? iso(alert.resolvedAt) : null,
    },
  };
}

/** Slack's incoming-webhook message (`text` with mrkdwn, the link as <url|words>). */
export function slackBody(alert: StoredAlert, kind: NotificationKind): unknown {
  const head = kind === "firing" ? `:red_circle: *FIRING* [${alert.severity}]` : ":large_green_circle: *RESOLVED*";
  const escapeMrkdwn = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return {
    text: `${head} ${escapeMrkdwn(alert.annotations.summary)}\n${escapeMrkdwn(alert.annotations.description)}\n<${alert.annotations.link}|Open in Baton>`,
  };
}

/** `X-Baton-Signature`: `sha256=` and the hex HMAC-SHA256 of the exact body bytes under the webhook's secret. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
