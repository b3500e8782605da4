"use client";

import Link from "next/link";
import { useState } from "react";

import { ListPager } from "@/components/ui/list-pager";

import type { DrilldownEvent } from "@/lib/violations/drilldown-types";
import { formatInstant } from "@/lib/violations/format";
import { drilldownHref } from "@/lib/violations/view-params";

function resourceText(event: DrilldownEvent): string {
  if (!event.subscription) return "—";
  const partition = event.resource?.partition ?? event.partition;
  return `${event.subscription}${partition === null ? "" : partition < 0 ? " (not partitioned)" : ` p${partition}`}`;
}

/** Events per page: a busy key has a thousand. */
export const EVENT_PAGE_SIZE = 25;

/** Every event of the key, newest first, a page at a time, with trace links. */
export function EventTable({ events, focusEventId, timeZone }: { events: readonly DrilldownEvent[]; focusEventId: string | null; timeZone: string }) {
  const newestFirst = [...events].reverse();
  const focusIndex = focusEventId === null ? -1 : newestFirst.findIndex((e) => e.eventId === focusEventId);
  // The page holding the focused event first.
  const [page, setPage] = useState(focusIndex < 0 ? 0 : Math.floor(focusIndex / EVENT_PAGE_SIZE));
  const shown = newestFirst.slice(page * EVENT_PAGE_SIZE, (page + 1) * EVENT_PAGE_SIZE);
  return (
    <>
      <table className="data vio-compact" data-testid="event-table">
        <caption className="vio-sr-only">Events of this key, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Observed</th>
            <th scope="col">Worker</th>
            <th scope="col" className="vio-num">
              Counter
            </th>
            <th scope="col">Service</th>
            <th scope="col">Subscription</th>
            <th scope="col">Trace</th>
            <th scope="col">Event</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e) => (
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
              <td>
                {e.eventId === focusEventId ? (
                  <strong>this event</strong>
                ) : (
                  <Link href={drilldownHref({ eventId: e.eventId, observedAt: e.observedAt })} className="mono">
                    {e.eventId}
                  </Link>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ListPager label="Events" page={page} pageSize={EVENT_PAGE_SIZE} total={newestFirst.length} onPage={setPage} />
    </>
  );
}
