import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import type { DetectedChange } from "@/lib/poller/change";
import { loadHoldStates, upsertHoldStates } from "@/lib/poller/hold-rows";
import { recordKeySharedSplits } from "@/lib/poller/key-shared-range-history";
import type { CycleStates, HoldResourceKind } from "@/lib/poller/source-cycles";
import { loadSubscriptionPartitionStates, upsertSubscriptionPartitionStates } from "@/lib/poller/subscription-partition-rows";

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
  errors: { target: string; message: string }[];
  pollerId: string;
};

/** The last saved states of a cluster, in the shape its kind keeps: what a restarted poller resumes from. */
export async function loadCycleStates(db: Db, clusterId: number, shape: CycleStates["shape"], holdKind: HoldResourceKind): Promise<CycleStates> {
  return shape === "subscription-partition"
    ? { shape, states: await loadSubscriptionPartitionStates(db, clusterId) }
    : { shape, resourceKind: holdKind, states: await loadHoldStates(db, clusterId, holdKind) };
}

function upsertStates(tx: Prisma.TransactionClient, clusterId: number, states: CycleStates): Promise<Map<string, bigint>> {
  return states.shape === "subscription-partition"
    ? upsertSubscriptionPartitionStates(tx, clusterId, states.states)
    : upsertHoldStates(tx, clusterId, states.resourceKind, states.states);
}

async function insertChanges(tx: Prisma.TransactionClient, clusterId: number, epoch: bigint, ids: Map<string, bigint>, changes: DetectedChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const col = <T,>(pick: (c: DetectedChange) => T) => changes.map(pick);
  // The unique (resource, kind, newSeenAt) key makes a second write of the same transition a no-op.
  return tx.$executeRaw(Prisma.sql`
    insert into holder_change (cluster_id, resource_id, kind, cause, ending, from_holder, to_holder, old_seen_at, new_seen_at, is_during_gap, details,
      predicted_holder, prediction, poller_epoch)
    select ${clusterId}, u.resource_id, u.kind::change_kind, u.cause::change_cause, u.ending::hold_ending, u.from_holder, u.to_holder, u.old_seen_at,
      u.new_seen_at, u.is_during_gap, u.details, u.predicted_holder, u.prediction::prediction_outcome, ${epoch}
    from unnest(
      ${col((c) => ids.get(c.resourceKey)!)}::bigint[], ${col((c) => c.kind)}::text[], ${col((c) => c.cause)}::text[], ${col((c) => c.ending ?? null)}::text[],
      ${col((c) => c.fromHolder)}::text[], ${col((c) => c.toHolder)}::text[], ${col((c) => c.oldSeenAt)}::timestamptz[],
      ${col((c) => c.newSeenAt)}::timestamptz[], ${col((c) => c.isDuringGap)}::boolean[], ${col((c) => JSON.stringify(c.details))}::jsonb[],
      ${col((c) => c.prediction?.predictedHolder ?? null)}::text[], ${col((c) => c.prediction?.outcome ?? null)}::text[]
    ) as u(resource_id, kind, cause, ending, from_holder, to_holder, old_seen_at, new_seen_at, is_during_gap, details, predicted_holder, prediction)
    on conflict (resource_id, kind, new_seen_at) do nothing`);
}

/**
 * Saves one cycle atomically: the states, the changes and the poll-run record, only while this
 * poller's epoch is still the lease's (a deposed poller's late cycle writes nothing).
 * Returns the number of change rows written.
 */
export async function saveCycle(
  db: Db,
  input: { clusterId: number; epoch: bigint; states: CycleStates; changes: DetectedChange[]; pollRun: PollRunRecord },
): Promise<number> {
  const { clusterId, epoch, pollRun } = input;
  return db.$transaction(async (tx) => {
    const lease = await tx.$queryRaw<{ epoch: bigint }[]>(Prisma.sql`select epoch from poller_lease where cluster_id = ${clusterId} for share`);
    if (lease[0]?.epoch !== epoch) throw new PollerDeposedError(`cluster ${clusterId}: lease epoch is ${lease[0]?.epoch ?? "none"}, this poller's is ${epoch}`);
    const ids = await upsertStates(tx, clusterId, input.states);
    const changeCount = await insertChanges(tx, clusterId, epoch, ids, input.changes);
    if (input.states.shape === "subscription-partition") await recordKeySharedSplits(tx, clusterId, input.states.states, ids, input.changes);
    await tx.pollRun.create({
      data: {
        clusterId,
        startedAt: pollRun.startedAt,
        finishedAt: pollRun.finishedAt,
        durationMs: Math.max(0, Date.parse(pollRun.finishedAt) - Date.parse(pollRun.startedAt)),
        cycleMs: pollRun.cycleMs,
        topicCount: pollRun.topicCount,
        resourceCount: input.states.states.length,
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
