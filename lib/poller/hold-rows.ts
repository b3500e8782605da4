import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb, SqlQueries } from "@/lib/db/sql-db";
import { iso } from "@/lib/poller/iso";
import { type HoldState, type HoldStats, NO_HOLD_STATS } from "@/lib/poller/hold-state";
import type { HoldResourceKind } from "@/lib/poller/source-cycles";

// Locks (every lock-like kind) in held_resource: the shared columns (holder, holder_token,
// holder_since, expires_at), the waiters in `consumers`, and the rest in `details`.

/** What a lock keeps in held_resource.details. */
export type HoldDetails = {
  pattern: string;
  ttlMs: number | null;
  isSplit: boolean;
  stats: HoldStats;
  /** The source kind's own details of the last observation. */
  source: Record<string, unknown>;
};

type Waiter = { name: string };

type HoldRow = {
  resource_key: string;
  holder: string | null;
  holder_token: string | null;
  holder_since: Date | null;
  expires_at: Date | null;
  consumers: unknown;
  details: unknown;
  last_observed_at: Date | null;
  stale_since: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  gone_at: Date | null;
  last_change_at: Date | null;
};

export function toHoldDetails(state: HoldState): HoldDetails {
  return { pattern: state.pattern, ttlMs: state.ttlMs, isSplit: state.isSplit, stats: state.stats, source: state.details };
}

export async function loadHoldStates(db: SqlDb, clusterId: number, kind: HoldResourceKind): Promise<HoldState[]> {
  const rows = await db.$queryRaw<HoldRow[]>(sql`
    select resource_key, holder, holder_token, holder_since, expires_at, consumers, details, last_observed_at, stale_since, last_error,
      last_error_at, gone_at, last_change_at
    from held_resource where cluster_id = ${clusterId} and kind = ${kind}::resource_kind`);
  return rows.map((row): HoldState => {
    const details = row.details as Partial<HoldDetails>;
    return {
      resourceKey: row.resource_key,
      pattern: details.pattern ?? "",
      holder: row.holder,
      holderToken: row.holder_token,
      expiresAt: iso(row.expires_at),
      ttlMs: details.ttlMs ?? null,
      waiters: (row.consumers as Waiter[]).map((w) => w.name),
      isSplit: details.isSplit ?? false,
      details: details.source ?? {},
      holderSince: iso(row.holder_since),
      lastObservedAt: iso(row.last_observed_at),
      staleSince: iso(row.stale_since),
      lastError: row.last_error,
      lastErrorAt: iso(row.last_error_at),
      goneAt: iso(row.gone_at),
      lastChangeAt: iso(row.last_change_at),
      stats: details.stats ?? NO_HOLD_STATS,
    };
  });
}

/** One statement per cycle, through unnest() of parallel arrays, as for subscription partitions. */
export async function upsertHoldStates(tx: SqlQueries, clusterId: number, kind: HoldResourceKind, states: HoldState[]): Promise<Map<string, bigint>> {
  if (states.length === 0) return new Map();
  const col = <T>(pick: (s: HoldState) => T) => states.map(pick);
  const rows = await tx.$queryRaw<{ id: bigint; resource_key: string }[]>(sql`
    insert into held_resource (cluster_id, kind, resource_key, holder, holder_token, holder_since, expires_at, consumers, details,
      last_observed_at, stale_since, last_error, last_error_at, gone_at, last_change_at)
    select ${clusterId}, ${kind}::resource_kind, u.* from unnest(
      ${col((s) => s.resourceKey)}::text[], ${col((s) => s.holder)}::text[], ${col((s) => s.holderToken)}::text[],
      ${col((s) => s.holderSince)}::timestamptz[], ${col((s) => s.expiresAt)}::timestamptz[],
      ${col((s) => JSON.stringify(s.waiters.map((name): Waiter => ({ name }))))}::jsonb[], ${col((s) => JSON.stringify(toHoldDetails(s)))}::jsonb[],
      ${col((s) => s.lastObservedAt)}::timestamptz[], ${col((s) => s.staleSince)}::timestamptz[], ${col((s) => s.lastError)}::text[],
      ${col((s) => s.lastErrorAt)}::timestamptz[], ${col((s) => s.goneAt)}::timestamptz[], ${col((s) => s.lastChangeAt)}::timestamptz[]
    ) as u
    on conflict (cluster_id, resource_key) do update set
      holder = excluded.holder, holder_token = excluded.holder_token, holder_since = excluded.holder_since, expires_at = excluded.expires_at,
      consumers = excluded.consumers, details = excluded.details, last_observed_at = excluded.last_observed_at,
      stale_since = excluded.stale_since, last_error = excluded.last_error, last_error_at = excluded.last_error_at,
      gone_at = excluded.gone_at, last_change_at = excluded.last_change_at
    returning id, resource_key`);
  return new Map(rows.map((row) => [row.resource_key, row.id]));
}
