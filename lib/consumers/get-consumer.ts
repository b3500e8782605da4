import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { listHolderLocks, type HolderLock } from "@/lib/locks/list-holder-locks";
import { listChanges, type ChangeRow } from "@/lib/subscriptions/list-subscription-changes";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

export type ConsumerPosition = {
  cluster: string;
  topic: string;
  partition: number;
  subscription: string;
  subscriptionType: string | null;
  /** True when this consumer is the active one (the holder); false when it stands by or shares (Key_Shared). */
  isHolder: boolean;
  holder: string | null;
  holderSince: string | null;
  /** When this consumer's connection was established, as the broker reports it. */
  connectedSince: string | null;
  msgRateOut: number | null;
  address: string | null;
  clientVersion: string | null;
  lastObservedAt: string | null;
  /** Set when the data is not current (polls fail): positions are then the last known. */
  staleSince: string | null;
  goneAt: string | null;
};

export type ConsumerReport = {
  name: string;
  /** Every subscription partition where the consumer is connected, holders first. */
  positions: ConsumerPosition[];
  /** Every lock the name holds or waits for, held first. */
  locks: HolderLock[];
  /** Changes that moved a hold to or from this consumer, newest first. */
  history: ChangeRow[];
  historyTotal: number;
  nextCursor: string | null;
};

type PositionRow = {
  cluster: string;
  topic: string | null;
  partition: number | null;
  subscription: string | null;
  subscription_type: string | null;
  holder: string | null;
  holder_since: Date | null;
  consumer: { connectedSince?: string | null; msgRateOut?: number | null; address?: string | null; clientVersion?: string | null } | null;
  last_observed_at: Date | null;
  stale_since: Date | null;
  gone_at: Date | null;
};

/**
 * Where a consumer is (held or standing by), and its holder changes in a range. A consumer
 * name is not unique across clusters (nor across services): positions say where each one is.
 */
export async function getConsumer(
  db: Db,
  input: { clusterNames: string[]; name: string; cluster: string | null; fromMs: number; toMs: number; limit?: number; cursor?: string },
): Promise<ConsumerReport> {
  const clusters = input.cluster === null ? input.clusterNames : input.clusterNames.filter((n) => n === input.cluster);
  const [positions, locks, history] = await Promise.all([
    // The consumers column has no index for "contains this name": a scan of held_resource, which
    // holds one row per subscription partition (10,000 rows scan in tens of milliseconds).
    db.$queryRaw<PositionRow[]>(sql`
      select c.name as cluster, r.topic, r.partition, r.subscription, r.subscription_type, r.holder, r.holder_since,
        (select e from jsonb_array_elements(r.consumers) e where e->>'name' = ${input.name} limit 1) as consumer,
        ${LAST_OBSERVED_AT} as last_observed_at, r.stale_since, r.gone_at
      from held_resource r
      ${OBSERVATION_SWEEP_JOIN}
      join cluster c on c.id = r.cluster_id
      where c.name = any(${clusters}::text[]) and r.gone_at is null and r.kind = 'PULSAR_SUBSCRIPTION_PARTITION'
        and (r.holder = ${input.name} or r.consumers @> ${JSON.stringify([{ name: input.name }])}::jsonb)
      order by (r.holder is not distinct from ${input.name}) desc, c.name, r.topic, r.subscription, r.partition`),
    listHolderLocks(db, { name: input.name, clusters }),
    clusters.length === 0
      ? Promise.resolve({ changes: [], total: 0, nextCursor: null })
      : listChanges(db, { kind: "consumer", name: input.name, clusters }, input),
  ]);
  return {
    name: input.name,
    positions: positions.map((p) => ({
      cluster: p.cluster,
      topic: p.topic ?? "",
      partition: p.partition ?? -1,
      subscription: p.subscription ?? "",
      subscriptionType: p.subscription_type,
      isHolder: p.holder === input.name,
      holder: p.holder,
      holderSince: p.holder_since?.toISOString() ?? null,
      connectedSince: p.consumer?.connectedSince ?? null,
      msgRateOut: p.consumer?.msgRateOut ?? null,
      address: p.consumer?.address ?? null,
      clientVersion: p.consumer?.clientVersion ?? null,
      lastObservedAt: p.last_observed_at?.toISOString() ?? null,
      staleSince: p.stale_since?.toISOString() ?? null,
      goneAt: p.gone_at?.toISOString() ?? null,
    })),
    locks,
    history: history.changes,
    historyTotal: history.total,
    nextCursor: history.nextCursor,
  };
}
