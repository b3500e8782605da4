import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import type { HashRangeSplit } from "@/lib/pulsar/hash-ranges";
import type { BacklogSample, ConsumerObservation, DetectedChange, ResourceState } from "@/lib/poller/observation";
import { ResourceStateIndex } from "@/lib/poller/resource-state-index";

/** The lease's epoch moved on: another poller took over, and this one must stop writing. */
export class PollerDeposedError extends Error {
  override name = "PollerDeposedError";
}

export type PollRunRecord = {
  startedAt: string;
  finishedAt: string;
  cycleMs: number | null;
  topicCount: number;
  requestCount: number;
  errors: { topic: string; message: string }[];
  pollerId: string;
};

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The last saved state of every resource of a cluster: what a restarted poller resumes from. */
export async function loadResourceStates(db: Db, clusterId: number): Promise<ResourceStateIndex> {
  const rows = await db.heldResource.findMany({
    where: { clusterId, kind: "PULSAR_SUBSCRIPTION_PARTITION" },
    select: {
      resourceKey: true, topic: true, tenant: true, namespace: true, partition: true, subscription: true, subscriptionType: true,
      isDurable: true, holder: true, holderSince: true, consumers: true, hashRanges: true, backlog: true, msgRateOut: true,
      recentSamples: true, lastObservedAt: true, staleSince: true, lastError: true, lastErrorAt: true, goneAt: true, lastChangeAt: true,
    },
  });
  return ResourceStateIndex.from(
    rows.map(
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
    ),
  );
}

// Bulk writes go through unnest() of parallel arrays: one statement per cycle whatever the
// number of resources (a cycle may touch tens of thousands), instead of one per row.

async function upsertStates(tx: Prisma.TransactionClient, clusterId: number, states: ResourceState[]): Promise<Map<string, bigint>> {
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

async function insertChanges(tx: Prisma.TransactionClient, clusterId: number, epoch: bigint, ids: Map<string, bigint>, changes: DetectedChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const col = <T,>(pick: (c: DetectedChange) => T) => changes.map(pick);
  // The unique (resource, kind, newSeenAt) key makes a second write of the same transition a no-op.
  return tx.$executeRaw(Prisma.sql`
    insert into holder_change (cluster_id, resource_id, kind, cause, from_holder, to_holder, old_seen_at, new_seen_at, is_during_gap, details, poller_epoch)
    select ${clusterId}, u.resource_id, u.kind::change_kind, u.cause::change_cause, u.from_holder, u.to_holder, u.old_seen_at, u.new_seen_at,
      u.is_during_gap, u.details, ${epoch}
    from unnest(
      ${col((c) => ids.get(c.resourceKey)!)}::bigint[], ${col((c) => c.kind)}::text[], ${col((c) => c.cause)}::text[],
      ${col((c) => c.fromHolder)}::text[], ${col((c) => c.toHolder)}::text[], ${col((c) => c.oldSeenAt)}::timestamptz[],
      ${col((c) => c.newSeenAt)}::timestamptz[], ${col((c) => c.isDuringGap)}::boolean[], ${col((c) => JSON.stringify(c.details))}::jsonb[]
    ) as u(resource_id, kind, cause, from_holder, to_holder, old_seen_at, new_seen_at, is_during_gap, details)
    on conflict (resource_id, kind, new_seen_at) do nothing`);
}

/**
 * Saves one cycle atomically: the states, the changes and the poll-run record, only while this
 * poller's epoch is still the lease's (a deposed poller's late cycle writes nothing).
 * Returns the number of change rows written.
 */
export async function saveCycle(
  db: Db,
  input: { clusterId: number; epoch: bigint; states: ResourceState[]; changes: DetectedChange[]; pollRun: PollRunRecord },
): Promise<number> {
  const { clusterId, epoch, pollRun } = input;
  return db.$transaction(async (tx) => {
    const lease = await tx.$queryRaw<{ epoch: bigint }[]>(Prisma.sql`select epoch from poller_lease where cluster_id = ${clusterId} for share`);
    if (lease[0]?.epoch !== epoch) throw new PollerDeposedError(`cluster ${clusterId}: lease epoch is ${lease[0]?.epoch ?? "none"}, this poller's is ${epoch}`);
    const ids = await upsertStates(tx, clusterId, input.states);
    const changeCount = await insertChanges(tx, clusterId, epoch, ids, input.changes);
    await tx.pollRun.create({
      data: {
        clusterId,
        startedAt: pollRun.startedAt,
        finishedAt: pollRun.finishedAt,
        durationMs: Math.max(0, Date.parse(pollRun.finishedAt) - Date.parse(pollRun.startedAt)),
        cycleMs: pollRun.cycleMs,
        topicCount: pollRun.topicCount,
        resourceCount: input.states.length,
        requestCount: pollRun.requestCount,
        errorCount: pollRun.errors.length,
        changeCount,
        errors: pollRun.errors.slice(0, 20),
        pollerEpoch: epoch,
        pollerId: pollRun.pollerId,
      },
      select: { id: true },
    });
    return changeCount;
  }, { timeout: 60_000 });
}
