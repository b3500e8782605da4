import Link from "next/link";

import { ZonedTime } from "@/components/board/time-text";
import type { AlertView } from "@/lib/alerts/alert-types";
import { describeWhere, inAppHref, STATE_WORDS, stateSeverity } from "@/lib/alerts/alert-words";

/** Alerts with their state, where, since when and their history (full times with the zone); each links to the page that explains it. */
export function AlertsTable({ alerts, label }: { alerts: AlertView[]; label: string }) {
  return (
    <table className="data" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">State</th>
          <th scope="col">Alert</th>
          <th scope="col">Where</th>
          <th scope="col">Active since</th>
          <th scope="col">History</th>
        </tr>
      </thead>
      <tbody>
        {alerts.map((alert) => (
          <tr key={alert.id} data-fingerprint={alert.fingerprint}>
            <td>
              <span className="flag" data-severity={stateSeverity(alert)}>
                {STATE_WORDS[alert.state]}
                {alert.state === "firing" ? ` (${alert.severity})` : ""}
              </span>
            </td>
            <td>
              <Link href={inAppHref(alert.link)}>{alert.summary}</Link>
              <div className="muted">{alert.description}</div>
            </td>
            <td className="muted">{describeWhere(alert)}</td>
            <td>
              <ZonedTime iso={alert.activeAt} />
            </td>
            <td>
              <ol className="alert-history" aria-label="State history">
                {alert.history.map((step) => (
                  <li key={`${step.state}-${step.at}`}>
                    {STATE_WORDS[step.state]} <ZonedTime iso={step.at} />
                  </li>
                ))}
              </ol>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
