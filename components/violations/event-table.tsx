import Link from "next/link";

import type { DrilldownEvent } from "@/lib/violations/drilldown-types";
import { formatInstant } from "@/lib/violations/format";
import { drilldownHref } from "@/lib/violations/view-params";

function resourceText(event: DrilldownEvent): string {
  if (!event.subscription) return "—";
  const partition = event.resource?.partition ?? event.partition;
  return `${event.subscription}${partition === null ? "" : partition < 0 ? " (not partitioned)" : ` p${partition}`}`;
}

/** Every event of the key, newest first, with trace links. */
export function EventTable({ events, focusEventId, timeZone }: { events: readonly DrilldownEvent[]; focusEventId: string | null; timeZone: string }) {
  return (
    <table className="data vio-compact" data-testid="event-table">
      <caption className="vio-sr-only">Events of this key, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Observed</th>
          <th scope="col">Worker</th>
          <th scope="col" className="vio-num">Counter</th>
          <th scope="col">Service</th>
          <th scope="col">Subscription</th>
          <th scope="col">Trace</th>
          <th scope="col">Event</th>
        </tr>
      </thead>
      <tbody>
        {[...events].reverse().map((e) => (
          <tr key={e.eventId} data-violation={e.isViolation} data-focus={e.eventId === focusEventId}>
            <td className="mono vio-nowrap">{formatInstant(e.observedAt, timeZone)}</td>
            <td>{e.worker}</td>
            <td className={e.isViolation ? "vio-num vio-outside" : "vio-num"}>{e.counter}</td>
            <td>{e.service}</td>
            <td>{resourceText(e)}</td>
            <td>
              {e.traceUrl ? (
                <a href={e.traceUrl} target="_blank" rel="noreferrer" className="mono">
                  {e.traceId}
                </a>
              ) : (
                <span className="mono muted">{e.traceId ?? "—"}</span>
              )}
            </td>
            <td>{e.eventId === focusEventId ? <strong>this event</strong> : <Link href={drilldownHref({ eventId: e.eventId, observedAt: e.observedAt })} className="mono">{e.eventId}</Link>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
