import "server-only";

import type { BoardThresholds, DeploymentWindow, SubscriptionGroup } from "@/lib/board/board-types";
import { isDeploymentOf } from "@/lib/board/health-rules";
import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { ApiError } from "@/lib/http/api-error";
import type { ConsumerObservation } from "@/lib/poller/contract/partition-state";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { listDeploymentWindows } from "@/lib/deployments/list-deployment-windows";
import { ALL_LEADERS, listLeaders } from "@/lib/subscriptions/list-leaders";
import { prepareTimeline } from "@/lib/timeline/prepare-timeline";
import type { ChangeCause, ChangeKind, LaneState, Timeline, TimelineChange } from "@/lib/timeline/timeline-types";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

export type PartitionDetail = {
  partition: number;
  /** Every consumer as last observed (rates, permits, address, client version). */
  consumers: ConsumerObservation[];
  hashRanges: HashRangeSplit | null;
};

export type SubscriptionTimeline = {
  /** The subscription's current state and health, as on the board. */
  subscription: SubscriptionGroup;
  partitions: PartitionDetail[];
  timeline: Timeline;
  /** Deployments in the range that were not matched to this subscription's consumers (see docs/http-api.md). */
  unmatchedDeploymentCount: number;
};

type ResourceRow = {
  partition: number | null;
  subscription_type: string | null;
  consumers: ConsumerObservation[];
  hash_ranges: HashRangeSplit | null;
  holder: string | null;
  first_seen_at: Date;
  last_observed_at: Date | null;
  stale_since: Date | null;
  gone_at: Date | null;
  next_kind: ChangeKind | null;
  next_from_holder: string | null;
};

/** A change as a positional JSON array, times in epoch ms: 20,000 of them arrive as one JSON text. */
type ChangeTuple = [
  partition: number | null,
  kind: ChangeKind,
  cause: ChangeCause,
  fromHolder: string | null,
  toHolder: string | null,
  oldSeenAt: number | null,
  newSeenAt: number,
  isDuringGap: boolean,
];

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/**
 * One subscription over a range: its partitions now, the changes in the range, and the
 * deployments of its consumers' services, prepared for drawing (lib/timeline). Three
 * statements besides the board's own two, run at once: the partitions (each with the first
 * holder change after the range, which says who held it at the range's end), the range's
 * changes over the (resource, time) index as one JSON text, and the deployments overlapping
 * the range.
 */
export async function getSubscriptionTimeline(
  db: Db,
  input: {
    thresholds: BoardThresholds;
    /** A configured cluster (the caller checks). */
    cluster: string;
    topic: string;
    subscription: string;
    fromMs: number;
    toMs: number;
    deployments?: "matched" | "all";
    nowMs?: number;
  },
): Promise<SubscriptionTimeline> {
  const nowMs = input.nowMs ?? Date.now();
  const from = new Date(input.fromMs);
  const to = new Date(input.toMs);
  const scope = sql`r.cluster_id = (select id from cluster where name = ${input.cluster}) and r.topic = ${input.topic} and r.subscription = ${input.subscription}
    and r.kind = 'PULSAR_SUBSCRIPTION_PARTITION'`;

  const [board, resources, changes, deployments] = await Promise.all([
    listLeaders(db, {
      clusterNames: [input.cluster],
      thresholds: input.thresholds,
      query: { ...ALL_LEADERS, topic: input.topic, subscription: input.subscription, includeGone: true },
      nowMs,
    }),
    db.$queryRaw<ResourceRow[]>(sql`
      select r.partition, r.subscription_type, r.consumers, r.hash_ranges, r.holder, r.first_seen_at, ${LAST_OBSERVED_AT} as last_observed_at, r.stale_since, r.gone_at,
        n.kind as next_kind, n.from_holder as next_from_holder
      from held_resource r
      ${OBSERVATION_SWEEP_JOIN}
      left join lateral (
        select kind, from_holder from holder_change
        where resource_id = r.id and new_seen_at > ${to} and kind in ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP')
        order by new_seen_at limit 1
      ) n on true
      where ${scope}
      order by r.partition`),
    db.$queryRaw<{ changes: string }[]>(sql`
      select coalesce(json_agg(json_build_array(r.partition, h.kind, h.cause, h.from_holder, h.to_holder,
        (date_part('epoch', h.old_seen_at) * 1000)::bigint, (date_part('epoch', h.new_seen_at) * 1000)::bigint, h.is_during_gap)), '[]')::text as changes
      from held_resource r
      join holder_change h on h.resource_id = r.id
      where ${scope} and h.new_seen_at >= ${from} and h.new_seen_at <= ${to}`),
    listDeploymentWindows(db, input),
  ]);

  const subscription = board.subscriptions[0];
  if (!subscription || resources.length === 0) {
    throw new ApiError(404, "not_found", `Baton has not seen subscription ${input.subscription} on ${input.topic} in cluster ${input.cluster}.`);
  }

  const timelineChanges: TimelineChange[] = (JSON.parse(changes[0]!.changes) as ChangeTuple[]).map((c) => ({
    partition: c[0] ?? -1,
    kind: c[1],
    cause: c[2],
    fromHolder: c[3],
    toHolder: c[4],
    oldSeenAt: c[5],
    newSeenAt: c[6],
    isDuringGap: c[7],
  }));
  const lanes: LaneState[] = resources.map((r) => ({
    partition: r.partition ?? -1,
    // The first holder change after the range names who held it at the range's end.
    holderAtRangeEnd: r.next_kind === null ? r.holder : r.next_kind === "HOLDER_APPEARED" ? null : r.next_from_holder,
    firstSeenAt: r.first_seen_at.getTime(),
    lastObservedAt: ms(r.last_observed_at),
    staleSince: ms(r.stale_since),
    goneAt: ms(r.gone_at),
  }));

  // "Services involved": a deployment whose service is the subscription's name, or a prefix of
  // the name of a consumer that is connected now or held a partition in the range.
  const involved = new Set(subscription.consumers);
  for (const c of timelineChanges) for (const name of [c.fromHolder, c.toHolder]) if (name !== null) involved.add(name);
  const probe = { subscription: input.subscription, consumers: [...involved], holder: null };
  const windows: DeploymentWindow[] = deployments;
  const matched = windows.filter((d) => isDeploymentOf(d, probe));
  const shown = input.deployments === "all" ? windows : matched;

  const timeline = prepareTimeline({
    fromMs: input.fromMs,
    toMs: input.toMs,
    nowMs,
    isKeyShared: subscription.subscriptionType === "Key_Shared",
    lanes,
    changes: timelineChanges,
    deployments: shown,
    currentConsumers: subscription.consumers,
  });
  return {
    subscription,
    partitions: resources.map((r) => ({ partition: r.partition ?? -1, consumers: r.consumers, hashRanges: r.hash_ranges })),
    timeline,
    unmatchedDeploymentCount: windows.length - matched.length,
  };
}
