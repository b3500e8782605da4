import "server-only";

import type { Db } from "@/lib/db/client";
import { sql, type Sql } from "@/lib/db/sql";
import { ApiError } from "@/lib/http/api-error";
import { compactId } from "@/lib/ingest/compact-id";
import type { DrilldownEvent, KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { HashingScheme } from "@/lib/pulsar/producer-routing";
import { computeOwners } from "@/lib/violations/queries/read-owner-history";
import { readLeaderChanges } from "@/lib/violations/queries/read-leader-changes";
import { readLockChanges } from "@/lib/violations/queries/read-lock-changes";
import {
  changesNearEvents,
  countOverlaps,
  explainViolations,
  findPreviousEntries,
  listSilenceProbes,
  summariseWorkers,
} from "@/lib/violations/explain-violations";
import { readWorkerSilences } from "@/lib/violations/queries/read-worker-silences";
import { twoHandsSql } from "@/lib/violations/queries/two-hands-sql";
import { serviceWindowsSql, windowEndSql } from "@/lib/deployments/window-sql";
import { type BandRow, toBand } from "@/lib/deployments/list-deployment-bands";
import { resourceRefOf } from "@/lib/violations/resource-ref";
import { buildTraceUrl } from "@/lib/violations/trace-url";
import { countCauses } from "@/lib/violations/violation-cause";

/** The drill-down shows at most this many events of a key (the latest). */
export const DRILLDOWN_EVENT_LIMIT = 1_000;
/** A single event's drill-down shows the key this far around it (at least the coincidence window). */
const EVENT_CONTEXT_MS = 15 * 60_000;

export type DrilldownSettings = {
  windowMs: number;
  graceMs: number;
  traceUrlTemplate: string | null;
  retentionDays: number;
  /** Per full topic name: the producers' hashingScheme (BATON_PRODUCER_ROUTING); JavaStringHash when absent. */
  producerRouting?: Readonly<Record<string, HashingScheme>>;
  nowMs?: number;
};

const iso = (ms: number) => new Date(ms).toISOString();

type CountRow = { events: number; violations: number; inside: number };

type EventRow = {
  event_id: string;
  key: string;
  counter: number;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  trace_id: string | null;
  observed_at: string;
  received_at: string;
  others_inside: { worker: string; enteredAt: number }[] | null;
  lock: string | null;
  two_hands: string | null;
};

/** The key's latest events in the range (one more than shown, to tell a truncation), newest first. */
function latestEventsSql(key: string, fromMs: number, toMs: number): Sql {
  return sql`
    select baton_id_text(event_id) as event_id, key, counter, service, worker, topic, subscription, partition, baton_id_text(trace_id) as trace_id,
      observed_at, received_at, others_inside, lock, ${twoHandsSql} as two_hands
    from exclusivity_event
    where key = ${key} and observed_at >= ${iso(fromMs)}::timestamptz and observed_at < ${iso(toMs)}::timestamptz
    order by observed_at desc, exclusivity_event.event_id desc
    limit ${DRILLDOWN_EVENT_LIMIT + 1}`;
}

/**
 * The key's events as one JSON value: mapping a thousand rows through Prisma's row decoding
 * costs several times the query itself (measured: findMany 40-75 ms, raw rows 30-40 ms, one JSON
 * value 25-30 ms, of which the query is 8).
 */
async function readEvents(
  db: Db,
  key: string,
  fromMs: number,
  toMs: number,
  settings: DrilldownSettings,
): Promise<{ events: DrilldownEvent[]; isTruncated: boolean }> {
  const [result] = await db.$queryRaw<{ rows: EventRow[] }[]>(sql`select coalesce(json_agg(x), '[]') as rows from (${latestEventsSql(key, fromMs, toMs)}) x`);
  const rows = result?.rows ?? [];
  // A key's events name a handful of subscription partitions: normalise each name once.
  const refs = new Map<string, ReturnType<typeof resourceRefOf>>();
  const refOf = (row: EventRow) => {
    const cacheKey = `${row.topic}\u0000${row.subscription}\u0000${row.partition}`;
    if (!refs.has(cacheKey)) refs.set(cacheKey, resourceRefOf(row));
    return refs.get(cacheKey)!;
  };
  const events = rows
    .slice(0, DRILLDOWN_EVENT_LIMIT)
    .reverse()
    .map(
      (row): DrilldownEvent => ({
        eventId: row.event_id,
        key: row.key,
        counter: row.counter,
        isViolation: row.counter > 0,
        service: row.service,
        worker: row.worker,
        topic: row.topic,
        subscription: row.subscription,
        partition: row.partition,
        traceId: row.trace_id,
        traceUrl: row.trace_id === null ? null : buildTraceUrl(settings.traceUrlTemplate, row.trace_id),
        observedAt: new Date(row.observed_at).toISOString(),
        receivedAt: new Date(row.received_at).toISOString(),
        resource: refOf(row),
        othersInside:
          row.others_inside === null ? null : row.others_inside.map((other) => ({ worker: other.worker, enteredAt: new Date(other.enteredAt).toISOString() })),
        lock: row.lock,
        ...(row.two_hands === null ? {} : { twoHands: row.two_hands }),
      }),
    );
  return { events, isTruncated: rows.length > DRILLDOWN_EVENT_LIMIT };
}

/** The key's counts over the whole range (not only the events shown), classified. */
async function countKey(db: Db, key: string, fromMs: number, toMs: number, settings: DrilldownSettings, nowMs: number): Promise<CountRow> {
  const scope = { startMs: fromMs, endMs: toMs, graceMs: settings.graceMs, nowMs, service: null, subscription: null, environment: null };
  const [row] = await db.$queryRaw<CountRow[]>(sql`
    select count(*)::int as events, count(*) filter (where e.counter > 0)::int as violations,
      count(*) filter (where e.counter > 0 and e.observed_at <@ w.w)::int as inside
    from exclusivity_event e
    left join (${serviceWindowsSql(scope)}) w on w.service = e.service
    where e.key = ${key} and e.observed_at >= ${iso(fromMs)}::timestamptz and e.observed_at < ${iso(toMs)}::timestamptz`);
  return row ?? { events: 0, violations: 0, inside: 0 };
}

/**
 * Deployments (any service) whose window, grace included, comes within the window of one of the
 * events shown. The events' windows are derived in SQL from the same events, so that this runs
 * beside the events' own read instead of after it.
 */
async function readDeployments(db: Db, input: { key: string; fromMs: number; toMs: number }, settings: DrilldownSettings, nowMs: number) {
  const windowEnd = windowEndSql({ nowMs, graceMs: settings.graceMs });
  const rows = await db.$queryRaw<BandRow[]>(sql`
    with around as (
      select range_agg(tstzrange(e.observed_at - ${settings.windowMs}::double precision * interval '1 millisecond',
        e.observed_at + ${settings.windowMs}::double precision * interval '1 millisecond', '[]')) as w,
        max(e.observed_at) as last_at
      from (${latestEventsSql(input.key, input.fromMs, input.toMs)}) e
    )
    select d.id, d.service, d.version, d.environment, d.started_at, d.finished_at, ${windowEnd} as window_end, d.link
    from deployment d, around
    where around.w is not null and d.started_at <= around.last_at + ${settings.windowMs}::double precision * interval '1 millisecond'
      and tstzrange(d.started_at, ${windowEnd}, '[)') && around.w
    order by d.started_at, d.id`);
  return rows.map(toBand);
}

/** Every event of a key in a range, the workers and their overlaps, and what coincides with each violation. */
export async function getKeyDrilldown(
  db: Db,
  input: { key: string; fromMs: number; toMs: number; focusEventId?: string | null },
  settings: DrilldownSettings,
): Promise<KeyDrilldown> {
  const nowMs = settings.nowMs ?? Date.now();
  const [{ events, isTruncated }, counts, deployments] = await Promise.all([
    readEvents(db, input.key, input.fromMs, input.toMs, settings),
    countKey(db, input.key, input.fromMs, input.toMs, settings, nowMs),
    readDeployments(db, input, settings, nowMs),
  ]);
  const violations = events.filter((e) => e.isViolation && e.resource !== null);
  const [subscriptionChanges, lockChanges, owners] = await Promise.all([
    readLeaderChanges(db, events, settings.windowMs),
    readLockChanges(db, events, settings.windowMs),
    computeOwners(db, violations, { windowMs: settings.windowMs, producerRouting: settings.producerRouting ?? {} }),
  ]);
  const ownerByEvent = new Map(violations.map((e, i) => [e.eventId, owners[i]!]));
  const leaderChanges = changesNearEvents(subscriptionChanges, events, settings.windowMs);
  const previous = findPreviousEntries(events);
  const isSilentBefore = await readWorkerSilences(db, listSilenceProbes({ events, changes: leaderChanges, windowMs: settings.windowMs, owners: ownerByEvent }));
  const explanations = explainViolations({
    events,
    changes: leaderChanges,
    lockChanges,
    deployments,
    windowMs: settings.windowMs,
    nowMs,
    owners: ownerByEvent,
    isSilentBefore,
  });
  return {
    key: input.key,
    from: iso(input.fromMs),
    to: iso(input.toMs),
    focusEventId: input.focusEventId ?? null,
    windowMs: settings.windowMs,
    graceMs: settings.graceMs,
    rawSince: iso(nowMs - settings.retentionDays * 86_400_000),
    events,
    eventLimit: DRILLDOWN_EVENT_LIMIT,
    isTruncated,
    counts: { events: counts.events, violations: counts.violations, inside: counts.inside, outside: counts.violations - counts.inside },
    workers: summariseWorkers(events),
    overlaps: countOverlaps(events, previous),
    leaderChanges,
    lockChanges,
    deployments,
    explanations,
    causes: countCauses(explanations.map((e) => e.cause)),
  };
}

/** An event to find: its id, and its observedAt when the caller knows it (epoch ms). */
export type EventLookup = { eventId: string; atMs: number | null };

/**
 * The event with this id. With its time: a probe of the primary key (observed_at, event_id) in
 * the one partition of that hour (or day, for a violation). Without: a violation through its
 * partial index (one probe per day partition), otherwise a scan of every other partition (the
 * table has no index on the id alone: a unique key of a partitioned table must hold the time, and
 * an index on every row's random id is what made ingest slow at scale).
 */
async function findEvent(db: Db, lookup: EventLookup): Promise<{ key: string; observedAt: Date } | null> {
  const eventId = compactId(lookup.eventId);
  const { atMs } = lookup;
  const select = { key: true, observedAt: true } as const;
  if (atMs !== null) return db.exclusivityEvent.findFirst({ where: { eventId, observedAt: new Date(atMs) }, select });
  const violation = await db.exclusivityEvent.findFirst({ where: { eventId, isViolation: true, counter: { gt: 0 } }, select });
  return violation ?? (await db.exclusivityEvent.findFirst({ where: { eventId, isViolation: false }, select }));
}

/** A single event's drill-down: its key around it, with the event in focus. 404 for an unknown id. */
export async function getEventDrilldown(db: Db, lookup: EventLookup, settings: DrilldownSettings): Promise<KeyDrilldown> {
  const { eventId, atMs } = lookup;
  const event = await findEvent(db, lookup);
  if (!event) {
    const when = atMs === null ? "" : ` observed at ${new Date(atMs).toISOString()}`;
    throw new ApiError(
      404,
      "event_not_found",
      `No counter event has the id "${eventId}"${when} (raw events older than ${settings.retentionDays} days are deleted).`,
    );
  }
  const around = Math.max(EVENT_CONTEXT_MS, settings.windowMs);
  const observedMs = event.observedAt.getTime();
  return getKeyDrilldown(db, { key: event.key, fromMs: observedMs - around, toMs: observedMs + around, focusEventId: eventId }, settings);
}
