import type { AlertView } from "@/lib/alerts/alert-types";

// Alerts as markers over a chart's time range: where each alert was firing (or pending, not
// yet firing), as fractions of the range. Pure and client-safe; the strip only draws them.

export type AlertSpan = {
  id: string;
  state: AlertView["state"];
  severity: AlertView["severity"];
  /** Fractions of the range, clipped to it: [start, end]. */
  start: number;
  end: number;
  /** Words for the marker's title: what, and from when to when. */
  title: string;
};

/**
 * Spans of the alerts that overlap [fromMs, toMs): from when they fired (pending ones: from
 * when they became active) to their resolution, or to the range's end while still open.
 */
export function prepareAlertSpans(alerts: readonly AlertView[], fromMs: number, toMs: number): AlertSpan[] {
  const width = toMs - fromMs;
  if (width <= 0) return [];
  const spans: AlertSpan[] = [];
  for (const alert of alerts) {
    const startMs = Date.parse(alert.firedAt ?? alert.activeAt);
    const endMs = alert.resolvedAt === null ? toMs : Date.parse(alert.resolvedAt);
    if (endMs < fromMs || startMs >= toMs) continue;
    const clip = (ms: number) => Math.min(1, Math.max(0, (ms - fromMs) / width));
    const until = alert.resolvedAt === null ? (alert.state === "pending" ? "pending" : "still firing") : `resolved ${alert.resolvedAt}`;
    spans.push({
      id: alert.id,
      state: alert.state,
      severity: alert.severity,
      start: clip(startMs),
      end: clip(endMs),
      title: `${alert.summary}: ${alert.firedAt ? `fired ${alert.firedAt}` : `pending since ${alert.activeAt}`}, ${until}`,
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The alerts of one service (their `service` label): the markers under that service's own chart. */
export function alertsOfService(alerts: readonly AlertView[], service: string): AlertView[] {
  return alerts.filter((alert) => alert.labels.service === service);
}
