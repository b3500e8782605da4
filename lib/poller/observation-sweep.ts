import "server-only";

import type { SqlDb, SqlQueries } from "@/lib/db/sql-db";
import type { ResourceKind } from "@/lib/db/generated/client";
import { sql } from "@/lib/db/sql";
import type { GapFields } from "@/lib/poller/mark-gaps";

// A cluster's last observation per kind, kept once per full cycle (observation_sweep) instead of
// on every held_resource row. A full cycle reads every known resource and writes those it could
// not read as stale (or gone), so a row that is neither stale nor gone was observed by the latest
// full cycle, and one that is stale failed in it.

type Observed = GapFields & { lastObservedAt: string | null };

/** The full cycle's time: its earliest observation or failure, so that no resource is taken as observed later than it was. */
export function sweepTimeOf(states: readonly Observed[]): string | null {
  let earliest: string | null = null;
  for (const state of states) {
    if (state.goneAt !== null) continue;
    const at = state.staleSince === null ? state.lastObservedAt : state.lastErrorAt;
    if (at !== null && (earliest === null || Date.parse(at) < Date.parse(earliest))) earliest = at;
  }
  return earliest;
}

function later(a: string | null, b: string): string {
  return a === null || Date.parse(a) < Date.parse(b) ? b : a;
}

/**
 * Each state's effective last observation (and, while stale, its last failure) given the latest
 * full cycle's time: the same derivation the read models make in SQL (lib/held-resources/last-observed-sql.ts).
 */
export function deriveLastObservations<S extends Observed>(states: S[], sweptAt: string | null): S[] {
  if (sweptAt === null) return states;
  return states.map((state) => {
    if (state.goneAt !== null) return state;
    if (state.staleSince !== null) return { ...state, lastErrorAt: later(state.lastErrorAt, sweptAt) };
    return { ...state, lastObservedAt: later(state.lastObservedAt, sweptAt) };
  });
}

export async function loadObservationSweep(db: SqlDb, clusterId: number, kind: ResourceKind): Promise<string | null> {
  const [row] = await db.$queryRaw<{ observed_at: Date }[]>(sql`
    select observed_at from observation_sweep where cluster_id = ${clusterId} and kind = ${kind}::resource_kind`);
  return row?.observed_at.toISOString() ?? null;
}

export async function saveObservationSweep(tx: SqlQueries, clusterId: number, kind: ResourceKind, observedAt: string): Promise<void> {
  await tx.$executeRaw(sql`
    insert into observation_sweep (cluster_id, kind, observed_at) values (${clusterId}, ${kind}::resource_kind, ${observedAt}::timestamptz)
    on conflict (cluster_id, kind) do update set observed_at = excluded.observed_at`);
}
