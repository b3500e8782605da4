import "server-only";

import type { ValidEvent } from "@/lib/ingest/types";

// The rollup rows a batch adds when every event of it is new: events and violations per UTC
// minute, service and subscription ("" for none), as the parameters of the rollup statement
// (lib/ingest/ingest-statements.ts: ADD_MINUTE_COUNTS_SQL).

const MINUTE_MS = 60_000;

export type MinuteCounts = { bucketMs: number[]; services: string[]; subscriptions: string[]; violations: number[]; events: number[] };

export function countByMinute(events: readonly ValidEvent[]): MinuteCounts {
  const rows = new Map<string, { bucketMs: number; service: string; subscription: string; violations: number; events: number }>();
  for (const event of events) {
    const bucketMs = Math.floor(event.observedAtMs / MINUTE_MS) * MINUTE_MS;
    const subscription = event.subscription ?? "";
    // NUL cannot occur in a PostgreSQL text value: a separator no service or subscription holds.
    const id = `${bucketMs}\0${event.service}\0${subscription}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = { bucketMs, service: event.service, subscription, violations: 0, events: 0 };
      rows.set(id, row);
    }
    row.events += 1;
    if (event.counter > 0) row.violations += 1;
  }
  const counts: MinuteCounts = { bucketMs: [], services: [], subscriptions: [], violations: [], events: [] };
  for (const row of rows.values()) {
    counts.bucketMs.push(row.bucketMs);
    counts.services.push(row.service);
    counts.subscriptions.push(row.subscription);
    counts.violations.push(row.violations);
    counts.events.push(row.events);
  }
  return counts;
}
