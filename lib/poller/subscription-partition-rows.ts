import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { iso } from "@/lib/poller/iso";
import type { HashRangeSplit } from "@/lib/pulsar/hash-ranges";
import type { BacklogSample, ConsumerObservation, ResourceState } from "@/lib/sources/pulsar/observation";

// Pulsar subscription partitions in held_resource: its own columns (topic, partition,
// subscription, consumers, hash ranges, backlog).

/** The last saved state of every resource of a cluster: what a restarted poller resumes from. */
export async function loadSubscriptionPartitionStates(db: Db, clusterId: number): Promise<ResourceState[]> {
  const rows = await db.heldResource.findMany({
    where: { clusterId, kind: "PULSAR_SUBSCRIPTION_PARTITION" },
    select: {
      resourceKey: true, topic: true, tenant: true, namespace: true, partition: true, subscription: true, subscriptionType: true,
      isDurable: true, holder: true, holderSince: true, consumers: true, hashRanges: true, backlog: true, msgRateOut: true,
      recentSamples: true, lastObservedAt: true, staleSince: true, lastError: true, lastErrorAt: true, goneAt: true, lastChangeAt: true,
    },
  });
  return rows.map(
      (row): ResourceState => ({
        resourceKey: row.resourceKey,
        topic: row.topic ?? "",
        tenant: row.tenant ?? "",
        namespace: row.namespace ?? "",
        partition: row.partition ?? -1,
        subscription: row.subscription ?? "",
        subscriptionType: row.subscriptionType,
        isDurable: row.isDurable,
        holder: row.holder,
        holderSince: iso(row.holderSince),
        consumers: row.consumers as ConsumerObservation[],
        hashRanges: (row.hashRanges ?? null) as HashRangeSplit | null,
        backlog: row.backlog === null ? null : Number(row.backlog),
        msgRateOut: row.msgRateOut,
        recentSamples: row.recentSamples as BacklogSample[],
        lastObservedAt: iso(row.lastObservedAt),
        staleSince: iso(row.staleSince),
        lastError: row.lastError,
        lastErrorAt: iso(row.lastErrorAt),
        goneAt: iso(row.goneAt),
        lastChangeAt: iso(row.lastChangeAt),
      }),
  );
}

// Bulk writes go through unnest() of parallel arrays: one statement per cycle whatever the
// number of resources (a cycle may touch tens of thousands), instead of one per row.

export async function upsertSubscriptionPartitionStates(tx: Prisma.TransactionClient, clusterId: number, states: ResourceState[]): Promise<Map<string, bigint>> {
  if (states.length === 0) return new Map();
  const col = <T,>(pick: (s: ResourceState) => T) => states.map(pick);
  const rows = await tx.$queryRaw<{ id: bigint; resource_key: string }[]>(Prisma.sql`
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
