// The leaders board from loaded snapshots: rows judged by the health rules, grouped by
// subscription (partitions folded under it), worst health first. Pure and client-safe.

import type {
  BoardThresholds,
  ClusterSnapshot,
  DeploymentWindow,
  HealthFlag,
  LeaderClusterStatus,
  LeaderRow,
  LeadersBoard,
  PredictionScore,
  ResourceSnapshot,
  SubscriptionGroup,
} from "@/lib/board/board-types";
import { NO_PREDICTIONS } from "@/lib/board/board-types";
import { predictNextConsumer } from "@/lib/sources/pulsar/predict-next-consumer";
import { isoOrNull } from "@/lib/board/iso-time";
import { computeShares } from "@/lib/pulsar/hash-ranges";
import {
  distinctConsumers,
  evaluateResource,
  evaluateSubscription,
  SEVERITY_RANK,
  sortFlags,
  staleLimitMs,
  worstHealth,
  type RuleContext,
} from "@/lib/board/health-rules";
import { compareText } from "@/lib/compare-text";

export type BoardInput = {
  nowMs: number;
  thresholds: BoardThresholds;
  clusters: ClusterSnapshot[];
  resources: ResourceSnapshot[];
  deployments: DeploymentWindow[];
  /** Each cluster's prediction score, by name (none: no scored change yet). */
  predictions?: ReadonlyMap<string, PredictionScore>;
};

export function subscriptionKey(r: Pick<ResourceSnapshot, "cluster" | "topic" | "subscription">): string {
  return `${r.cluster}|${r.topic}|${r.subscription}`;
}

function buildRow(resource: ResourceSnapshot, ctx: RuleContext): LeaderRow {
  const flags = evaluateResource(resource, ctx);
  const stale = flags.find((f) => f.rule === "stale");
  const shares = resource.hashRanges ? computeShares(resource.hashRanges) : null;
  return {
    partition: resource.partition,
    holder: resource.holder,
    holderSince: isoOrNull(resource.holderSince),
    standbys: resource.holder === null ? resource.consumers : resource.consumers.filter((name) => name !== resource.holder),
    consumerCount: resource.consumers.length,
    backlog: resource.backlog,
    msgRateOut: resource.msgRateOut,
    lastChangeAt: isoOrNull(resource.lastChangeAt),
    staleSince: stale ? (stale.since ?? isoOrNull(resource.lastObservedAt)) : null,
    goneAt: isoOrNull(resource.goneAt),
    changesInWindow: resource.changesInWindow,
    hashShares: shares
      ? Object.entries(shares)
          .map(([consumer, share]) => ({ consumer, share }))
          .sort((a, b) => b.share - a.share || compareText(a.consumer, b.consumer))
      : null,
    // Computed here, not stored: the rule over a handful of names costs microseconds (bench:next-in-line).
    next: predictNextConsumer(resource),
    health: worstHealth(flags),
    flags,
  };
}

function latest(values: (string | null)[]): string | null {
  let best: string | null = null;
  for (const v of values) if (v !== null && (best === null || v > best)) best = v;
  return best;
}

function earliest(values: (string | null)[]): string | null {
  let best: string | null = null;
  for (const v of values) if (v !== null && (best === null || v < best)) best = v;
  return best;
}

/** The partitions' flags, one per rule, counted ("on 1 of 2 partitions") for a partitioned topic. */
export function summarizePartitionFlags(rows: LeaderRow[], isPartitioned: boolean): HealthFlag[] {
  const byRule = new Map<string, { flag: HealthFlag; count: number; since: string | null }>();
  for (const row of rows) {
    for (const f of row.flags) {
      const entry = byRule.get(f.rule);
      if (!entry) byRule.set(f.rule, { flag: f, count: 1, since: f.since });
      else {
        entry.count++;
        entry.since = earliest([entry.since, f.since]);
        if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[entry.flag.severity]) entry.flag = f;
      }
    }
  }
  return [...byRule.values()].map(({ flag, count, since }) =>
    isPartitioned ? { ...flag, label: `${flag.label} (${count} of ${rows.length} partitions)`, since } : flag,
  );
}

function buildGroup(resources: ResourceSnapshot[], rows: LeaderRow[]): SubscriptionGroup {
  const first = resources[0]!;
  const isPartitioned = first.partition >= 0;
  const current = resources.filter((_, i) => rows[i]!.staleSince === null && rows[i]!.goneAt === null);
  // Subscription-level rules judge the whole subscription: only when every partition is current.
  const consumers = distinctConsumers(resources);
  const subscriptionFlags = current.length === resources.length ? evaluateSubscription(resources, consumers) : [];
  const flags = sortFlags([...subscriptionFlags, ...summarizePartitionFlags(rows, isPartitioned)]);
  const holders = [...new Set(current.map((r) => r.holder).filter((h): h is string => h !== null))].sort();
  const holderSet = new Set(holders);
  const backlogs = rows.map((r) => r.backlog);
  return {
    key: subscriptionKey(first),
    cluster: first.cluster,
    tenant: first.tenant,
    namespace: first.namespace,
    topic: first.topic,
    subscription: first.subscription,
    subscriptionType: resources.find((r) => r.subscriptionType !== null)?.subscriptionType ?? null,
    isPartitioned,
    partitions: rows,
    holders,
    consumers,
    // Who holds nothing is only known when every partition is current.
    idleConsumers: first.subscriptionType === "Key_Shared" || current.length < resources.length ? [] : consumers.filter((name) => !holderSet.has(name)),
    heldCount: current.filter((r) => r.holder !== null).length,
    staleCount: rows.filter((r) => r.staleSince !== null).length,
    backlog: backlogs.every((b) => b === null) ? null : backlogs.reduce<number>((sum, b) => sum + (b ?? 0), 0),
    lastChangeAt: latest(rows.map((r) => r.lastChangeAt)),
    latestHolderSince: latest(rows.map((r) => (r.staleSince === null ? r.holderSince : null))),
    health: worstHealth(flags),
    flags,
  };
}

/**
 * By name only: a row keeps its place between refreshes (sorting by health made rows jump as
 * their health changed); what is wrong is told by the health column, the filters and the header.
 */
function compareGroups(a: SubscriptionGroup, b: SubscriptionGroup): number {
  return compareText(a.cluster, b.cluster) || compareText(a.topic, b.topic) || compareText(a.subscription, b.subscription);
}

/** The board: one group per subscription, its partitions in order, in name order. */
export function buildBoard(input: BoardInput): LeadersBoard {
  const { nowMs, thresholds } = input;
  const windowStart = nowMs - thresholds.flapWindowMs;
  const deployments = input.deployments.filter((d) => Date.parse(d.startedAt) <= nowMs && (d.finishedAt === null || Date.parse(d.finishedAt) >= windowStart));
  const contexts = new Map<string, RuleContext>(
    input.clusters.map((c) => [
      c.name,
      { nowMs, thresholds, staleAfterMs: staleLimitMs(c.pollIntervalMs, c.lastCycleMs), clusterLastPollAt: c.lastPollAt, deployments },
    ]),
  );

  const byGroup = new Map<string, ResourceSnapshot[]>();
  for (const resource of input.resources) {
    const key = subscriptionKey(resource);
    let list = byGroup.get(key);
    if (!list) byGroup.set(key, (list = []));
    list.push(resource);
  }

  const groups: SubscriptionGroup[] = [];
  for (const resources of byGroup.values()) {
    resources.sort((a, b) => a.partition - b.partition);
    const ctx = contexts.get(resources[0]!.cluster);
    if (!ctx) continue; // a cluster outside the answer's clusters is out of scope
    groups.push(
      buildGroup(
        resources,
        resources.map((r) => buildRow(r, ctx)),
      ),
    );
  }
  groups.sort(compareGroups);

  const clusters: LeaderClusterStatus[] = input.clusters.map((c) => {
    let resourceCount = 0;
    let lastObservedAt: number | null = null;
    for (const r of input.resources) {
      if (r.cluster !== c.name) continue;
      resourceCount++;
      if (r.lastObservedAt !== null && (lastObservedAt === null || r.lastObservedAt > lastObservedAt)) lastObservedAt = r.lastObservedAt;
    }
    const limit = staleLimitMs(c.pollIntervalMs, c.lastCycleMs);
    return {
      name: c.name,
      pollIntervalMs: c.pollIntervalMs,
      lastPollAt: c.lastPollAt,
      lastPollErrorCount: c.lastPollErrorCount,
      lastPollError: c.lastPollError,
      lastObservedAt: isoOrNull(lastObservedAt),
      resourceCount,
      isSilent: c.lastPollAt === null ? resourceCount > 0 : nowMs - Date.parse(c.lastPollAt) > limit,
      predictions: input.predictions?.get(c.name) ?? NO_PREDICTIONS,
    };
  });

  return { generatedAt: new Date(nowMs).toISOString(), thresholds, clusters, subscriptions: groups };
}
