// The drill-down's lane chart, prepared: one lane per worker, a dot per entry into the key
// (violations marked), leader changes as vertical marks and deployment bands, over the events'
// extent plus the coincidence window. Client-safe and pure.

import { toBandSpans, type BandSpan } from "@/lib/violations/chart-data";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";

export type LaneDot = { eventId: string; at: number; lane: number; isViolation: boolean; isFocus: boolean; counter: number };
export type ChangeMark = { id: string; start: number; end: number; label: string };

export type WorkerLanes = {
  workers: string[];
  dots: LaneDot[];
  changes: ChangeMark[];
  bands: BandSpan[];
  fromMs: number;
  toMs: number;
};

export function buildWorkerLanes(drilldown: KeyDrilldown, nowMs: number): WorkerLanes {
  const { events, windowMs } = drilldown;
  const rangeFrom = Date.parse(drilldown.from);
  const rangeTo = Date.parse(drilldown.to);
  const times = events.map((e) => Date.parse(e.observedAt));
  const fromMs = times.length === 0 ? rangeFrom : Math.max(rangeFrom, Math.min(...times) - windowMs);
  const toMs = times.length === 0 ? rangeTo : Math.min(rangeTo, Math.max(...times) + windowMs);
  // Lanes in order of first entry, so the chart reads top-down in time.
  const workers: string[] = [];
  for (const e of events) if (!workers.includes(e.worker)) workers.push(e.worker);
  const laneOf = new Map(workers.map((w, i) => [w, i]));
  return {
    workers,
    dots: events.map((e, i) => ({
      eventId: e.eventId,
      at: times[i]!,
      lane: laneOf.get(e.worker)!,
      isViolation: e.isViolation,
      isFocus: e.eventId === drilldown.focusEventId,
      counter: e.counter,
    })),
    changes: drilldown.leaderChanges
      .map((c) => ({
        id: c.id,
        start: Math.max(fromMs, c.oldSeenAt === null ? Date.parse(c.newSeenAt) : Date.parse(c.oldSeenAt)),
        end: Math.min(toMs, Date.parse(c.newSeenAt)),
        label: `${c.subscription}${c.partition < 0 ? "" : ` p${c.partition}`}: ${c.fromHolder ?? "none"} → ${c.toHolder ?? "none"}`,
      }))
      .filter((c) => c.end >= fromMs && c.start <= toMs),
    bands: toBandSpans(drilldown.deployments, fromMs, toMs, nowMs),
    fromMs,
    toMs: Math.max(toMs, fromMs + 1),
  };
}
