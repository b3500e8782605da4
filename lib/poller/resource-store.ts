import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb, SqlQueries } from "@/lib/db/sql-db";
import type { DetectedChange } from "@/lib/poller/change";
import { loadHoldStates, upsertHoldStates } from "@/lib/poller/hold-rows";
import { recordKeySharedSplits } from "@/lib/poller/key-shared-range-history";
import type { CycleStates, StoredShape } from "@/lib/poller/source-cycles";
import { loadSubscriptionPartitionStates, upsertSubscriptionPartitionStates } from "@/lib/poller/subscription-partition-rows";
import { deriveLastObservations, loadObservationSweep, saveObservationSweep, sweepTimeOf } from "@/lib/poller/observation-sweep";
import type { WrittenRows } from "@/lib/poller/written-rows";

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

/**
 * The last saved states of a cluster, in the shape its kind keeps: what a restarted poller
 * resumes from, with each one's last observation (or failure) derived from the latest full cycle.
 */
export async function loadCycleStates(db: SqlDb, clusterId: number, stored: StoredShape): Promise<CycleStates> {
  const kind = stored.shape === "subscription-partition" ? "PULSAR_SUBSCRIPTION_PARTITION" : stored.resourceKind;
  const sweptAt = await loadObservationSweep(db, clusterId, kind);
  return stored.shape === "subscription-partition"
    ? { shape: stored.shape, states: deriveLastObservations(await loadSubscriptionPartitionStates(db, clusterId), sweptAt) }
    : {
        shape: stored.shape,
        resourceKind: stored.resourceKind,
        states: deriveLastObservations(await loadHoldStates(db, clusterId, stored.resourceKind), sweptAt),
      };
}

function resourceKindOf(states: CycleStates) {
  return states.shape === "subscription-partition" ? "PULSAR_SUBSCRIPTION_PARTITION" : states.resourceKind;
}

function upsertStates(tx: SqlQueries, clusterId: number, states: CycleStates): Promise<Map<string, bigint>> {
  return states.shape === "subscription-partition"
    ? upsertSubscriptionPartitionStates(tx, clusterId, states.states)
    : upsertHoldStates(tx, clusterId, states.resourceKind, states.states);
}

async function insertChanges(tx: SqlQueries, clusterId: number, epoch: bigint, ids: Map<string, bigint>, changes: DetectedChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const col = <T>(pick: (c: DetectedChange) => T) => changes.map(pick);
  // The unique (resource, kind, newSeenAt) key makes a second write of the same transition a no-op.
  return tx.$executeRaw(sql`
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

function insertPollRun(tx: SqlQueries, clusterId: number, epoch: bigint, run: PollRunRecord, resourceCount: number, changeCount: number): Promise<number> {
  const durationMs = Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt));
  return tx.$executeRaw(sql`
    insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count,
      change_count, errors, poller_epoch, poller_id)
    values (${clusterId}, ${run.startedAt}::timestamptz, ${run.finishedAt}::timestamptz, ${durationMs}, ${run.cycleMs}::int, ${run.topicCount},
      ${resourceCount}, ${run.requestCount}, ${run.errors.length}, ${changeCount}, ${JSON.stringify(run.errors.slice(0, 20))}::jsonb, ${epoch}, ${run.pollerId})`);
}

export type SaveCycleInput = {
  clusterId: number;
  epoch: bigint;
  /** Every state the cycle touched (observed, stale or gone); the others are left as they are. */
  states: CycleStates;
  /**
   * The cycle read every known resource of the cluster (a full sweep): its time becomes every
   * untouched fresh row's last observation. False for a read of a few resources between sweeps,
   * which must not make the others look observed.
   */
  isFullSweep: boolean;
  changes: DetectedChange[];
  /** Null for a re-poll of a few resources between cycles (a change signal's): no poll-run record. */
  pollRun: PollRunRecord | null;
  /** What this poller wrote before: only rows that changed are written. Without it, every touched state is. */
  written?: WrittenRows;
};

/**
 * Saves one cycle atomically: the rows that changed, the changes, the sweep's time and the
 * poll-run record, only while this poller's epoch is still the lease's (a deposed poller's late
 * cycle writes nothing). A re-poll between cycles (pollRun null) saves its rows and changes only.
 * Returns the number of change rows written.
 */
export async function saveCycle(db: SqlDb, input: SaveCycleInput): Promise<number> {
  const { clusterId, epoch, pollRun } = input;
  const sweptAt = input.isFullSweep ? (sweepTimeOf(input.states.states) ?? pollRun?.startedAt ?? new Date().toISOString()) : null;
  const toWrite = input.written ? input.written.select(input.states, sweptAt) : input.states;
  const changeCount = await db.$transaction(
    async (tx) => {
      const lease = await tx.$queryRaw<{ epoch: bigint }[]>(sql`select epoch from poller_lease where cluster_id = ${clusterId} for share`);
      if (lease[0]?.epoch !== epoch)
        throw new PollerDeposedError(`cluster ${clusterId}: lease epoch is ${lease[0]?.epoch ?? "none"}, this poller's is ${epoch}`);
      const ids = await upsertStates(tx, clusterId, toWrite);
      // A change's resource is always among the rows written (its holder or ranges moved).
      const changeCount = await insertChanges(tx, clusterId, epoch, ids, input.changes);
      if (toWrite.shape === "subscription-partition") await recordKeySharedSplits(tx, clusterId, toWrite.states, ids, input.changes);
      if (sweptAt !== null) await saveObservationSweep(tx, clusterId, resourceKindOf(input.states), sweptAt);
      if (pollRun) await insertPollRun(tx, clusterId, epoch, pollRun, input.states.states.length, changeCount);
      return changeCount;
    },
    { timeout: 60_000 },
  );
  input.written?.remember(toWrite);
  return changeCount;
}
