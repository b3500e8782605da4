import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
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

export function toHoldDetails(state: HoldState): HoldDetails {
  return { pattern: state.pattern, ttlMs: state.ttlMs, isSplit: state.isSplit, stats: state.stats, source: state.details };
}

export async function loadHoldStates(db: Db, clusterId: number, kind: HoldResourceKind): Promise<HoldState[]> {
  const rows = await db.heldResource.findMany({
    where: { clusterId, kind },
    select: {
      resourceKey: true, holder: true, holderToken: true, holderSince: true, expiresAt: true, consumers: true, details: true,
      lastObservedAt: true, staleSince: true, lastError: true, lastErrorAt: true, goneAt: true, lastChangeAt: true,
    },
  });
  return rows.map((row): HoldState => {
    const details = row.details as Partial<HoldDetails>;
    return {
      resourceKey: row.resourceKey,
      pattern: details.pattern ?? "",
      holder: row.holder,
      holderToken: row.holderToken,
      expiresAt: iso(row.expiresAt),
      ttlMs: details.ttlMs ?? null,
      waiters: (row.consumers as Waiter[]).map((w) => w.name),
      isSplit: details.isSplit ?? false,
      details: details.source ?? {},
      holderSince: iso(row.holderSince),
      lastObservedAt: iso(row.lastObservedAt),
      staleSince: iso(row.staleSince),
      lastError: row.lastError,
      lastErrorAt: iso(row.lastErrorAt),
      goneAt: iso(row.goneAt),
      lastChangeAt: iso(row.lastChangeAt),
      stats: details.stats ?? NO_HOLD_STATS,
    };
  });
}

/** One statement per cycle, through unnest() of parallel arrays, as for subscription partitions. */
export async function upsertHoldStates(tx: Prisma.TransactionClient, clusterId: number, kind: HoldResourceKind, states: HoldState[]): Promise<Map<string, bigint>> {
  if (states.length === 0) return new Map();
  const col = <T,>(pick: (s: HoldState) => T) => states.map(pick);
  const rows = await tx.$queryRaw<{ id: bigint; resource_key: string }[]>(Prisma.sql`
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
