import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

/** A lock a holder name holds or waits for. */
export type HolderLock = {
  cluster: string;
  key: string;
  pattern: string;
  /** holder: it holds it; waiter: it is queued for it. */
  role: "holder" | "waiter";
  /** Its place in the queue (1 = next), for a waiter. */
  queuePosition: number | null;
  holder: string | null;
  holderSince: string | null;
  expiresAt: string | null;
  /** When the poller last read it: the TTL left after the expiry is told from this read. */
  lastObservedAt: string | null;
  waiterCount: number;
  /** Set when the data is not current (reads fail): the lock is then the last known. */
  staleSince: string | null;
};

type Row = {
  cluster: string;
  resource_key: string;
  pattern: string | null;
  holder: string | null;
  holder_since: Date | null;
  expires_at: Date | null;
  last_observed_at: Date | null;
  position: number | null;
  waiter_count: number;
  stale_since: Date | null;
};

/**
 * The locks a name holds (over held_resource's holder index) or waits for (a scan of the lock
 * rows' waiter lists, which have no index: locks number thousands, not millions).
 */
export async function listHolderLocks(db: Db, input: { name: string; clusters: string[] }): Promise<HolderLock[]> {
  if (input.clusters.length === 0) return [];
  const rows = await db.$queryRaw<Row[]>(sql`
    select c.name as cluster, r.resource_key, r.details->>'pattern' as pattern, r.holder, r.holder_since, r.expires_at,
      ${LAST_OBSERVED_AT} as last_observed_at,
      (select w.n::int from jsonb_array_elements(r.consumers) with ordinality as w(e, n) where w.e->>'name' = ${input.name} limit 1) as position,
      jsonb_array_length(r.consumers)::int as waiter_count, r.stale_since
    from held_resource r
    join cluster c on c.id = r.cluster_id
    ${OBSERVATION_SWEEP_JOIN}
    where c.name = any(${input.clusters}::text[]) and r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION' and r.gone_at is null
      and (r.holder = ${input.name} or r.consumers @> ${JSON.stringify([{ name: input.name }])}::jsonb)
    order by (r.holder is not distinct from ${input.name}) desc, c.name, r.resource_key`);
  return rows.map((r) => {
    const isHolder = r.holder === input.name;
    return {
      cluster: r.cluster,
      key: r.resource_key,
      pattern: r.pattern ?? "",
      role: isHolder ? "holder" : "waiter",
      queuePosition: isHolder ? null : r.position,
      holder: r.holder,
      holderSince: r.holder_since?.toISOString() ?? null,
      expiresAt: r.expires_at?.toISOString() ?? null,
      lastObservedAt: r.last_observed_at?.toISOString() ?? null,
      waiterCount: r.waiter_count,
      staleSince: r.stale_since?.toISOString() ?? null,
    };
  });
}
