import type { AlertState, AlertView } from "@/lib/alerts/alert-types";

// How the Alerts page words an alert. Client-safe and pure.

export const STATE_WORDS: Record<AlertState, string> = { firing: "Firing", pending: "Pending", resolved: "Resolved" };

/** The pill colour of a state: firing takes its severity, pending is a warning, resolved is information. */
export function stateSeverity(alert: Pick<AlertView, "state" | "severity">): "critical" | "warning" | "info" {
  if (alert.state === "firing") return alert.severity;
  return alert.state === "pending" ? "warning" : "info";
}

/** The in-app address of an alert's link (its path and query), so that it opens in this Baton whatever its base URL. */
export function inAppHref(link: string): string {
  try {
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  } catch {
    return link;
  }
}

/** "cluster prod · subscription billing": the labels that say where, in order. */
export function describeWhere(alert: Pick<AlertView, "labels">): string {
  const { cluster, kind, resource, subscription, service } = alert.labels;
  return [cluster && `cluster ${cluster}`, kind, resource, subscription && `subscription ${subscription}`, service && `service ${service}`]
    .filter(Boolean)
    .join(" · ");
}
