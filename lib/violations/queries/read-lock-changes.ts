import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { sql } from "@/lib/db/sql";
import type { DrilldownEvent, LockChangeMarker } from "@/lib/violations/drilldown-types";
import { parseLockRef } from "@/lib/violations/lock-ref";

/** At most this many lock changes in one drill-down. */
const LOCK_CHANGE_LIMIT = 2_000;

type Row = {
  id: bigint;
  cluster: string;
  resource_key: string;
  kind: string;
  ending: string | null;
  from_holder: string | null;
  to_holder: string | null;
  old_seen_at: Date | null;
  new_seen_at: Date;
  details: { expiresAtBefore?: string | null; acquiredAt?: string | null };
};

/**
 * Holder changes of the locks the events name ("<cluster>/<lock key>"), within the window of one
 * of those events: found through the lock's held resource (cluster name, key), then its changes
 * over the (resource, time) index.
 */
export async function readLockChanges(
  db: SqlDb,
  events: readonly Pick<DrilldownEvent, "lock" | "observedAt">[],
  windowMs: number,
): Promise<LockChangeMarker[]> {
  const windows = new Map<string, { cluster: string; key: string; times: number[] }>();
  for (const event of events) {
    const ref = event.lock === null ? null : parseLockRef(event.lock);
    if (ref === null) continue;
    const entry = windows.get(event.lock!) ?? { ...ref, times: [] };
    entry.times.push(Date.parse(event.observedAt));
    windows.set(event.lock!, entry);
  }
  if (windows.size === 0) return [];
  const locks = [...windows.values()];
  const firstMs = Math.min(...locks.flatMap((l) => l.times)) - windowMs;
  const lastMs = Math.max(...locks.flatMap((l) => l.times)) + windowMs;
  const rows = await db.$queryRaw<Row[]>(sql`
    select h.id, c.name as cluster, r.resource_key, h.kind::text as kind, h.ending::text as ending, h.from_holder, h.to_holder,
      h.old_seen_at, h.new_seen_at, h.details
    from held_resource r
    join cluster c on c.id = r.cluster_id
    join holder_change h on h.resource_id = r.id
    where (c.name, r.resource_key) in (select * from unnest(${locks.map((l) => l.cluster)}::text[], ${locks.map((l) => l.key)}::text[]))
      and r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION'
      and h.kind in ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP')
      and h.new_seen_at >= ${new Date(firstMs).toISOString()}::timestamptz
      and coalesce(h.old_seen_at, h.new_seen_at) <= ${new Date(lastMs).toISOString()}::timestamptz
    order by h.new_seen_at, h.id
    limit ${LOCK_CHANGE_LIMIT}`);
  return rows
    .map(
      (row): LockChangeMarker => ({
        id: row.id.toString(),
        lock: `${row.cluster}/${row.resource_key}`,
        kind: row.kind,
        ending: row.ending,
        fromHolder: row.from_holder,
        toHolder: row.to_holder,
        oldSeenAt: row.old_seen_at?.toISOString() ?? null,
        newSeenAt: row.new_seen_at.toISOString(),
        expiresAtBefore: row.details.expiresAtBefore ?? null,
        acquiredAt: row.details.acquiredAt ?? null,
      }),
    )
    .filter((change) => {
      // Within the window of one of that lock's own events.
      const times = windows.get(change.lock)?.times ?? [];
      const newMs = Date.parse(change.newSeenAt);
      const oldMs = change.oldSeenAt === null ? newMs : Date.parse(change.oldSeenAt);
      return times.some((t) => newMs >= t - windowMs && oldMs <= t + windowMs);
    });
}
