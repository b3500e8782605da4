import "server-only";

import type { BoardThresholds } from "@/lib/board/board-types";
import { isDeploymentOf } from "@/lib/board/health-rules";
import type { LockRow } from "@/lib/board/lock-types";
import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { ApiError } from "@/lib/http/api-error";
import { listDeploymentWindows } from "@/lib/deployments/list-deployment-windows";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import { prepareTimeline } from "@/lib/timeline/prepare-timeline";
import type { ChangeCause, ChangeKind, HoldEnding, LaneState, Timeline, TimelineChange } from "@/lib/timeline/timeline-types";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

/** One lock (key) or every lock of a pattern, in one configured cluster. */
export type LockRef = { cluster: string; key: string; pattern?: undefined } | { cluster: string; pattern: string; key?: undefined };

export type LockTimeline = {
  /** The locks now (health as on the board), in lane order. */
  locks: LockRow[];
  /** One lane per lock, labelled with its key. */
  timeline: Timeline;
  /** How many locks of the pattern were left out past MAX_LOCK_LANES. */
  hiddenLockCount: number;
  /** Deployments in the range not matched to a holder's service (shown only when asked). */
  unmatchedDeploymentCount: number;
};

/** Lanes drawn at most: a pattern with more locks shows its first keys (the board lists them all). */
export const MAX_LOCK_LANES = 50;

type ResourceRow = {
  resource_key: string;
  holder: string | null;
  first_seen_at: Date;
  last_observed_at: Date | null;
  stale_since: Date | null;
  gone_at: Date | null;
  next_kind: ChangeKind | null;
  next_from_holder: string | null;
};

type ChangeTuple = [
  key: string,
  kind: ChangeKind,
  cause: ChangeCause,
  ending: HoldEnding | null,
  fromHolder: string | null,
  toHolder: string | null,
  oldSeenAt: number | null,
  newSeenAt: number,
  isDuringGap: boolean,
];

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/**
 * A lock (or a pattern's locks) over a range, ready to draw: the locks now, a lane per lock of
 * tenures with unobserved gaps, a marker per change with how the previous hold ended, and the
 * deployments of the holders' services as bands. Four statements at once besides the board's.
 */
export async function getLockTimeline(
  db: Db,
  input: LockRef & { thresholds: BoardThresholds; fromMs: number; toMs: number; deployments?: "matched" | "all"; nowMs?: number },
): Promise<LockTimeline> {
  const nowMs = input.nowMs ?? Date.now();
  const from = new Date(input.fromMs);
  const to = new Date(input.toMs);
  const key = input.key ?? null;
  const pattern = input.pattern ?? null;
  const which = key !== null ? sql`r.resource_key = ${key}` : sql`r.details->>'pattern' = ${pattern}`;
  const scope = sql`r.cluster_id = (select id from cluster where name = ${input.cluster}) and r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION' and ${which}`;

  const [board, resources, changes, deployments] = await Promise.all([
    listLocks(db, { clusterNames: [input.cluster], thresholds: input.thresholds, query: { ...ALL_LOCKS, key, pattern, includeGone: true }, nowMs }),
    db.$queryRaw<ResourceRow[]>(sql`
      select r.resource_key, r.holder, r.first_seen_at, ${LAST_OBSERVED_AT} as last_observed_at, r.stale_since, r.gone_at, n.kind as next_kind, n.from_holder as next_from_holder
      from held_resource r
      ${OBSERVATION_SWEEP_JOIN}
      left join lateral (
        select kind, from_holder from holder_change
        where resource_id = r.id and new_seen_at > ${to} and kind in ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP')
        order by new_seen_at limit 1
      ) n on true
      where ${scope}
      order by r.resource_key
      limit ${MAX_LOCK_LANES + 1}`),
    db.$queryRaw<{ changes: string }[]>(sql`
      select coalesce(json_agg(json_build_array(r.resource_key, h.kind, h.cause, h.ending, h.from_holder, h.to_holder,
        (date_part('epoch', h.old_seen_at) * 1000)::bigint, (date_part('epoch', h.new_seen_at) * 1000)::bigint, h.is_during_gap)), '[]')::text as changes
      from held_resource r
      join holder_change h on h.resource_id = r.id
      where ${scope} and h.new_seen_at >= ${from} and h.new_seen_at <= ${to}`),
    listDeploymentWindows(db, input),
  ]);

  if (resources.length === 0) {
    const what = key !== null ? `lock ${key}` : `any lock of pattern ${pattern}`;
    throw new ApiError(404, "not_found", `Baton has not seen ${what} in cluster ${input.cluster}.`);
  }
  const shown = resources.slice(0, MAX_LOCK_LANES);
  const laneOf = new Map(shown.map((r, i) => [r.resource_key, i]));
  const timelineChanges: TimelineChange[] = (JSON.parse(changes[0]!.changes) as ChangeTuple[]).flatMap((c) => {
    const lane = laneOf.get(c[0]);
    if (lane === undefined) return [];
    return [{ partition: lane, kind: c[1], cause: c[2], ending: c[3], fromHolder: c[4], toHolder: c[5], oldSeenAt: c[6], newSeenAt: c[7], isDuringGap: c[8] }];
  });
  const lanes: LaneState[] = shown.map((r, i) => ({
    partition: i,
    label: r.resource_key,
    holderAtRangeEnd: r.next_kind === null ? r.holder : r.next_kind === "HOLDER_APPEARED" ? null : r.next_from_holder,
    firstSeenAt: r.first_seen_at.getTime(),
    lastObservedAt: ms(r.last_observed_at),
    staleSince: ms(r.stale_since),
    goneAt: ms(r.gone_at),
  }));

  const order = new Map(shown.map((r, i) => [r.resource_key, i]));
  const locks = board.locks.filter((l) => order.has(l.key)).sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  // "Services involved": a deployment whose service is a prefix of a holder's or waiter's name.
  const involved = new Set<string>();
  for (const lock of locks) for (const name of [lock.holder, ...lock.waiters]) if (name !== null) involved.add(name);
  for (const c of timelineChanges) for (const name of [c.fromHolder, c.toHolder]) if (name !== null) involved.add(name);
  const probe = { subscription: "", consumers: [...involved], holder: null };
  const matched = deployments.filter((d) => isDeploymentOf(d, probe));

  const timeline = prepareTimeline({
    fromMs: input.fromMs,
    toMs: input.toMs,
    nowMs,
    isKeyShared: false,
    lanes,
    changes: timelineChanges,
    deployments: input.deployments === "all" ? deployments : matched,
    currentConsumers: locks.flatMap((l) => (l.holder === null ? [] : [l.holder])),
  });
  return { locks, timeline, hiddenLockCount: Math.max(0, resources.length - MAX_LOCK_LANES), unmatchedDeploymentCount: deployments.length - matched.length };
}
