import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb, SqlQueries } from "@/lib/db/sql-db";
import { iso } from "@/lib/poller/iso";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import type { BacklogSample, ConsumerObservation, ResourceState } from "@/lib/poller/contract/partition-state";

// Pulsar subscription partitions in held_resource: its own columns (topic, partition,
// subscription, consumers, hash ranges, backlog).

type SubscriptionPartitionRow = {
  resource_key: string;
  topic: string | null;
  tenant: string | null;
  namespace: string | null;
  partition: number | null;
  subscription: string | null;
  subscription_type: string | null;
  is_durable: boolean;
  holder: string | null;
  holder_since: Date | null;
  consumers: unknown;
  hash_ranges: unknown;
  backlog: bigint | null;
  msg_rate_out: number | null;
  recent_samples: unknown;
  last_observed_at: Date | null;
  stale_since: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  gone_at: Date | null;
  last_change_at: Date | null;
};

/** The last saved state of every resource of a cluster: what a restarted poller resumes from. */
export async function loadSubscriptionPartitionStates(db: SqlDb, clusterId: number): Promise<ResourceState[]> {
  const rows = await db.$queryRaw<SubscriptionPartitionRow[]>(sql`
    select resource_key, topic, tenant, namespace, partition, subscription, subscription_type, is_durable, holder, holder_since, consumers,
      hash_ranges, backlog, msg_rate_out, recent_samples, last_observed_at, stale_since, last_error, last_error_at, gone_at, last_change_at
    from held_resource where cluster_id = ${clusterId} and kind = 'PULSAR_SUBSCRIPTION_PARTITION'`);
  return rows.map(
    (row): ResourceState => ({
      resourceKey: row.resource_key,
      topic: row.topic ?? "",
      tenant: row.tenant ?? "",
      namespace: row.namespace ?? "",
      partition: row.partition ?? -1,
      subscription: row.subscription ?? "",
      subscriptionType: row.subscription_type,
      isDurable: row.is_durable,
      holder: row.holder,
      holderSince: iso(row.holder_since),
      consumers: row.consumers as ConsumerObservation[],
      hashRanges: (row.hash_ranges ?? null) as HashRangeSplit | null,
      backlog: row.backlog === null ? null : Number(row.backlog),
      msgRateOut: row.msg_rate_out,
      recentSamples: row.recent_samples as BacklogSample[],
      lastObservedAt: iso(row.last_observed_at),
      staleSince: iso(row.stale_since),
      lastError: row.last_error,
      lastErrorAt: iso(row.last_error_at),
      goneAt: iso(row.gone_at),
      lastChangeAt: iso(row.last_change_at),
    }),
  );
}

// Bulk writes go through unnest() of parallel arrays: one statement per cycle whatever the
// number of resources (a cycle may touch tens of thousands), instead of one per row.

export async function upsertSubscriptionPartitionStates(tx: SqlQueries, clusterId: number, states: ResourceState[]): Promise<Map<string, bigint>> {
  if (states.length === 0) return new Map();
  const col = <T>(pick: (s: ResourceState) => T) => states.map(pick);
  const rows = await tx.$queryRaw<{ id: bigint; resource_key: string }[]>(sql`
    insert into held_resource (cluster_id, kind, resource_key, tenant, namespace, topic, partition, subscription, subscription_type,
      is_durable, holder, holder_since, consumers, hash_ranges, backlog, msg_rate_out, recent_samples, last_observed_at,
      stale_since, last_error, last_error_at, gone_at, last_change_at)
    select ${clusterId}, 'PULSAR_SUBSCRIPTION_PARTITION'::resource_kind, u.* from unnest(
      ${col((s) => s.resourceKey)}::text[], ${col((s) => s.tenant)}::text[], ${col((s) => s.namespace)}::text[],
      ${col((s) => s.topic)}::text[], ${col((s) => s.partition)}::int[], ${col((s) => s.subscription)}::text[],
      ${col((s) => s.subscriptionType)}::text[], ${col((s) => s.isDurable)}::boolean[], ${col((s) => s.holder)}::text[],
      ${col((s) => s.holderSince)}::timestamptz[], ${col((s) => JSON.stringify(s.consumers))}::jsonb[],
      ${col((s) => (s.hashRanges ? JSON.stringify(s.hashRanges) : null))}::jsonb[], ${col((s) => s.backlog)}::bigint[],
      ${col((s) => s.msgRateOut)}::float8[], ${col((s) => JSON.stringify(s.recentSamples))}::jsonb[],
      ${col((s) => s.lastObservedAt)}::timestamptz[], ${col((s) => s.staleSince)}::timestamptz[], ${col((s) => s.lastError)}::text[],
      ${col((s) => s.lastErrorAt)}::timestamptz[], ${col((s) => s.goneAt)}::timestamptz[], ${col((s) => s.lastChangeAt)}::timestamptz[]
    ) as u
    on conflict (cluster_id, resource_key) do update set
      subscription_type = excluded.subscription_type, is_durable = excluded.is_durable, holder = excluded.holder,
      holder_since = excluded.holder_since, consumers = excluded.consumers, hash_ranges = excluded.hash_ranges,
      backlog = excluded.backlog, msg_rate_out = excluded.msg_rate_out, recent_samples = excluded.recent_samples,
      last_observed_at = excluded.last_observed_at, stale_since = excluded.stale_since, last_error = excluded.last_error,
      last_error_at = excluded.last_error_at, gone_at = excluded.gone_at, last_change_at = excluded.last_change_at
    returning id, resource_key`);
  return new Map(rows.map((row) => [row.resource_key, row.id]));
}
