import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { sql, type Sql } from "@/lib/db/sql";
import { OWNERSHIP_CHANGE_KINDS } from "@/lib/violations/change-kinds";
import type { DrilldownEvent } from "@/lib/violations/drilldown-types";
import { LEADER_CHANGE_COLUMNS, type LeaderChangeRow, toLeaderChangeMarker } from "@/lib/violations/queries/leader-change-rows";
import type { LeaderChangeMarker } from "@/lib/violations/violation-types";

/** At most this many leader changes. */
const CHANGE_LIMIT = 2_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** ±window around each event, merged, as a multirange (SQL), from the events' instants. */
function eventWindowsSql(times: readonly string[], windowMs: number): Sql {
  return sql`(select range_agg(tstzrange(t - ${windowMs}::double precision * interval '1 millisecond', t + ${windowMs}::double precision * interval '1 millisecond', '[]'))
    from unnest(${times}::timestamptz[]) as t)`;
}

/**
 * Ownership changes of the subscriptions the events name, within the window of some event: one
 * statement over holder_change's (resource, time) index. The partition is matched afterwards
 * (changesNearEvents): an event may name it in its topic, in its partition field, or not at all.
 */
export async function readLeaderChanges(
  db: SqlDb,
  events: readonly Pick<DrilldownEvent, "resource" | "observedAt">[],
  windowMs: number,
): Promise<LeaderChangeMarker[]> {
  const refs = new Map<string, { topic: string; subscription: string }>();
  for (const e of events) if (e.resource) refs.set(`${e.resource.topic}|${e.resource.subscription}`, e.resource);
  if (refs.size === 0) return [];
  const times = events.map((e) => e.observedAt);
  const instants = times.map((t) => Date.parse(t));
  const firstMs = Math.min(...instants);
  const lastMs = Math.max(...instants);
  const pairs = [...refs.values()];
  const rows = await db.$queryRaw<LeaderChangeRow[]>(sql`
    select ${LEADER_CHANGE_COLUMNS}
    from held_resource r
    join cluster c on c.id = r.cluster_id
    join holder_change h on h.resource_id = r.id
    where (r.topic, r.subscription) in (select * from unnest(${pairs.map((p) => p.topic)}::text[], ${pairs.map((p) => p.subscription)}::text[]))
      and h.kind::text = any(${[...OWNERSHIP_CHANGE_KINDS]}::text[])
      and h.new_seen_at >= ${iso(firstMs - windowMs)}::timestamptz
      and coalesce(h.old_seen_at, h.new_seen_at) <= ${iso(lastMs + windowMs)}::timestamptz
      and tstzrange(coalesce(h.old_seen_at, h.new_seen_at), h.new_seen_at, '[]') && ${eventWindowsSql(times, windowMs)}
    order by h.new_seen_at, h.id
    limit ${CHANGE_LIMIT}`);
  return rows.map(toLeaderChangeMarker);
}
