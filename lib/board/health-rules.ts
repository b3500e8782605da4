// The board's health rules: one pure function per rule, thresholds passed in. Each returns a
// flag (words first: health is never told by colour alone) or null. Client-safe.

import type { BoardThresholds, DeploymentWindow, HealthFlag, ResourceSnapshot, Severity } from "@/lib/board/board-types";
import { judgeChurn, recoveryHoldMs } from "@/lib/board/finding-lifetime";
import { formatCount, formatDuration, formatShare, formatWindow } from "@/lib/board/format";
import { isoOrNull } from "@/lib/board/iso-time";
import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { findHashRangeProblems, type HashRangeProblems } from "@/lib/pulsar/hash-ranges";

/** However fast a cluster is polled, data is called stale only after this long without a poll. */
export const STALE_FLOOR_MS = 10_000;
/** A cluster's data is stale after this many poll intervals (or real cycles, when longer) without a poll. */
export const STALE_AFTER_INTERVALS = 3;

export const SEVERITY_RANK: Record<Severity | "ok", number> = { critical: 4, unknown: 3, warning: 2, info: 1, ok: 0 };

export type RuleContext = {
  nowMs: number;
  thresholds: BoardThresholds;
  /** How long a resource may go unobserved before it is stale (see staleLimitMs). */
  staleAfterMs: number;
  /** The end of its cluster's latest poll cycle, successful or not. */
  clusterLastPollAt: string | null;
  /** Deployments that overlap the flapping window. */
  deployments: DeploymentWindow[];
};

const iso = isoOrNull;

function flag(rule: HealthFlag["rule"], severity: Severity, label: string, detail: string, since: string | null = null): HealthFlag {
  return { rule, severity, label, detail, since };
}

export function describePartition(partition: number): string {
  return partition < 0 ? "the topic" : `partition ${partition}`;
}

/** The longest a cluster may go without a poll before its data counts as stale. */
export function staleLimitMs(pollIntervalMs: number, lastCycleMs: number | null): number {
  return Math.max(STALE_FLOOR_MS, STALE_AFTER_INTERVALS * Math.max(pollIntervalMs, lastCycleMs ?? 0));
}

/**
 * Stale: the poller says its polls of the resource fail (staleSince), or nobody has observed it
 * for longer than the cluster's staleness limit (the worker may be dead). Stale data is the last
 * known, never the current state.
 */
export function checkStale(
  resource: Pick<ResourceSnapshot, "cluster" | "staleSince" | "lastError" | "lastObservedAt">,
  ctx: Pick<RuleContext, "nowMs" | "staleAfterMs" | "clusterLastPollAt">,
): HealthFlag | null {
  if (resource.staleSince !== null) {
    return flag("stale", "unknown", "Stale", `polls fail: ${resource.lastError ?? "no error recorded"}`, iso(resource.staleSince));
  }
  const lastObserved = resource.lastObservedAt;
  if (lastObserved !== null && ctx.nowMs - lastObserved <= ctx.staleAfterMs) return null;
  const lastPoll = ctx.clusterLastPollAt === null ? null : Date.parse(ctx.clusterLastPollAt);
  const isClusterSilent = lastPoll === null || ctx.nowMs - lastPoll > ctx.staleAfterMs;
  const detail = isClusterSilent
    ? `no poll of ${resource.cluster} for over ${formatDuration(ctx.staleAfterMs)}: is Baton's worker running?`
    : `not observed for over ${formatDuration(ctx.staleAfterMs)} although ${resource.cluster} is polled`;
  return flag("stale", "unknown", "Stale", detail, iso(resource.lastObservedAt));
}

function isKeyShared(resource: Pick<ResourceSnapshot, "subscriptionType">): boolean {
  return resource.subscriptionType === "Key_Shared" || resource.subscriptionType === "Shared";
}

/** Nobody holds it: Failover/Exclusive without an active consumer, Key_Shared without consumers. */
export function checkNoActiveConsumer(resource: ResourceSnapshot): HealthFlag | null {
  if (isKeyShared(resource)) {
    if (resource.consumers.length > 0) return null;
    return flag("no-active-consumer", "critical", "No consumers", `nobody consumes ${describePartition(resource.partition)}: its keys are not processed`);
  }
  if (resource.holder !== null) return null;
  const detail =
    resource.consumers.length === 0
      ? `no consumer is connected to ${describePartition(resource.partition)}`
      : `${resource.consumers.length} consumers are connected but the broker names none active`;
  return flag("no-active-consumer", "critical", "No active consumer", detail);
}

/** A consumer of the subscription belongs to the deployed service: same name, or the service's name then a separator. */
export function isDeploymentOf(deployment: DeploymentWindow, resource: Pick<ResourceSnapshot, "subscription" | "consumers" | "holder">): boolean {
  const service = deployment.service;
  const matches = (name: string) => name === service || (name.startsWith(service) && /^[-_.]/.test(name.slice(service.length)));
  return resource.subscription === service || resource.consumers.some(matches) || (resource.holder !== null && matches(resource.holder));
}

/**
 * Flapping: more holder changes in the window than the threshold. During a rollout of one of
 * its consumers' services that is expected (2-9 changes per partition), so it is a warning
 * that names the deployment rather than a page. It ends once the holder has kept the partition
 * for the recovery hold, even while the window still counts the earlier changes.
 */
export function checkFlapping(resource: ResourceSnapshot, ctx: RuleContext): HealthFlag | null {
  const { flapChanges, flapWindowMs } = ctx.thresholds;
  if (resource.changesInWindow <= flapChanges) return null;
  // It ends once the holder has kept it for the recovery hold (lib/board/finding-lifetime.ts).
  const recoveryMs = recoveryHoldMs(ctx.thresholds.recoveredAfterMs, null);
  if (judgeChurn(resource.changesInWindow, formatWindow(flapWindowMs), resource, ctx.nowMs, recoveryMs).state === "ended") return null;
  const evidence = `${resource.changesInWindow} holder changes in ${formatWindow(flapWindowMs)} (more than ${flapChanges})`;
  const deployment = ctx.deployments.find((d) => isDeploymentOf(d, resource));
  if (deployment) {
    return flag(
      "flapping-during-deployment",
      "warning",
      `Flapping during deployment of ${deployment.service}`,
      `${evidence}, while ${deployment.service} ${deployment.version} was deployed`,
    );
  }
  return flag("flapping", "critical", `Flapping: ${resource.changesInWindow} changes in ${formatWindow(flapWindowMs)}`, evidence);
}

/**
 * A stuck leader: the backlog grew at each of the last `stuckSamples` samples while the same
 * consumer held the resource (the GC-pause case: the broker still names it active).
 */
export function checkStuckLeader(resource: ResourceSnapshot, stuckSamples: number): HealthFlag | null {
  const holder = resource.holder;
  if (holder === null || stuckSamples < 2) return null;
  const samples = resource.recentSamples.slice(-stuckSamples);
  if (samples.length < stuckSamples) return null;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sample.holder !== holder || sample.backlog === null) return null;
    if (i > 0 && !(sample.backlog > samples[i - 1]!.backlog!)) return null;
  }
  const first = samples[0]!.backlog!;
  const last = samples[samples.length - 1]!.backlog!;
  return flag(
    "stuck-leader",
    "critical",
    "Stuck leader",
    `backlog grew from ${formatCount(first)} to ${formatCount(last)} over the last ${stuckSamples} samples while ${holder} stayed the active consumer`,
  );
}

/** The gap and overlap rules look at the same split: find its problems once. */
const problemsBySplit = new WeakMap<HashRangeSplit, HashRangeProblems>();

function problemsOf(split: HashRangeSplit): HashRangeProblems {
  let problems = problemsBySplit.get(split);
  if (!problems) problemsBySplit.set(split, (problems = findHashRangeProblems(split)));
  return problems;
}

function describeRanges(ranges: HashRange[], space: number): string {
  const size = ranges.reduce((sum, [start, end]) => sum + end - start + 1, 0);
  return `${ranges.length} ${ranges.length === 1 ? "range" : "ranges"} (${formatShare(size / space)} of the hash space)`;
}

/** Key_Shared: hashes no consumer owns. Messages with those keys are not delivered. */
export function checkHashRangeGap(resource: ResourceSnapshot): HealthFlag | null {
  if (resource.hashRanges === null) return null;
  const { gaps } = problemsOf(resource.hashRanges);
  if (gaps.length === 0) return null;
  return flag(
    "hash-range-gap",
    "critical",
    "Hash range gap",
    `${describeRanges(gaps, resource.hashRanges.space)} owned by no consumer: those keys are not delivered`,
  );
}

/** Key_Shared: hashes owned by more than one consumer. A key there can reach two workers at once. */
export function checkHashRangeOverlap(resource: ResourceSnapshot): HealthFlag | null {
  if (resource.hashRanges === null) return null;
  const { overlaps } = problemsOf(resource.hashRanges);
  if (overlaps.length === 0) return null;
  return flag(
    "hash-range-overlap",
    "critical",
    "Hash range overlap",
    `${describeRanges(overlaps, resource.hashRanges.space)} owned by two consumers: a key there can be processed twice at once`,
  );
}

/** Discovery no longer finds it (topic or subscription deleted). */
export function checkGone(resource: ResourceSnapshot): HealthFlag | null {
  if (resource.goneAt === null) return null;
  return flag("gone", "info", "Gone", "the topic or subscription no longer exists; what is shown is its last state", iso(resource.goneAt));
}

/** A reader (non-durable subscription): shown, but it holds no position of its own. */
export function checkReader(resource: ResourceSnapshot): HealthFlag | null {
  if (resource.isDurable) return null;
  return flag("reader", "info", "Reader", "a non-durable subscription (a reader): it keeps no position after it disconnects");
}

// ---------------------------------------------------------------------------------------------
// Subscription-level rules: over the partitions of one subscription, all current (not stale).

export function distinctConsumers(partitions: ResourceSnapshot[]): string[] {
  if (partitions.length === 1) return [...partitions[0]!.consumers].sort();
  const names = new Set<string>();
  for (const p of partitions) for (const name of p.consumers) names.add(name);
  return [...names].sort();
}

/** Failover over a partitioned topic with more consumers than partitions: some consumers hold nothing. */
export function checkIdleStandbys(partitions: ResourceSnapshot[], consumers = distinctConsumers(partitions)): HealthFlag | null {
  const first = partitions[0];
  if (first?.subscriptionType !== "Failover" || first.partition < 0) return null;
  if (consumers.length <= partitions.length) return null;
  const holders = new Set(partitions.map((p) => p.holder));
  const idle = consumers.filter((name) => !holders.has(name));
  return flag(
    "idle-standbys",
    "info",
    "Idle standbys",
    `${consumers.length} consumers for ${partitions.length} partitions: ${idle.join(", ") || "some"} ${idle.length === 1 ? "holds" : "hold"} nothing`,
  );
}

/** Failover over several partitions, all held by one consumer while others are connected and idle. */
export function checkOneHolderForAll(partitions: ResourceSnapshot[], consumers = distinctConsumers(partitions)): HealthFlag | null {
  const first = partitions[0];
  if (first?.subscriptionType !== "Failover" || first.partition < 0 || partitions.length < 2) return null;
  const holder = first.holder;
  if (holder === null || partitions.some((p) => p.holder !== holder)) return null;
  const others = consumers.filter((name) => name !== holder);
  if (others.length === 0) return null;
  return flag(
    "one-holder-for-all",
    "warning",
    "One consumer holds every partition",
    `${holder} holds all ${partitions.length} partitions while ${others.join(", ")} ${others.length === 1 ? "stands" : "stand"} by`,
  );
}

/** The worst severity of some flags, or ok. */
export function worstHealth(flags: readonly HealthFlag[]): Severity | "ok" {
  let worst: Severity | "ok" = "ok";
  for (const f of flags) if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[worst]) worst = f.severity;
  return worst;
}

/** Flags worst first; equal severities keep their rule order. */
export function sortFlags(flags: HealthFlag[]): HealthFlag[] {
  return flags.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
}

/**
 * Every row-level rule for one resource. Stale data is not judged (it is not current): a stale
 * resource gets the stale flag (and gone, when it is), nothing that claims to know its state.
 */
export function evaluateResource(resource: ResourceSnapshot, ctx: RuleContext): HealthFlag[] {
  const stale = checkStale(resource, ctx);
  const gone = checkGone(resource);
  if (stale) return sortFlags([stale, ...(gone ? [gone] : [])]);
  if (gone) return [gone];
  const flags = [
    checkNoActiveConsumer(resource),
    checkHashRangeOverlap(resource),
    checkHashRangeGap(resource),
    checkStuckLeader(resource, ctx.thresholds.stuckSamples),
    checkFlapping(resource, ctx),
    checkReader(resource),
  ].filter((f): f is HealthFlag => f !== null);
  return sortFlags(flags);
}

/** The subscription-level rules, over partitions whose data is current (and their distinct consumers, sorted). */
export function evaluateSubscription(partitions: ResourceSnapshot[], consumers = distinctConsumers(partitions)): HealthFlag[] {
  return [checkOneHolderForAll(partitions, consumers), checkIdleStandbys(partitions, consumers)].filter((f): f is HealthFlag => f !== null);
}
