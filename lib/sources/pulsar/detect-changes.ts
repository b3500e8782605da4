// Change detection: a pure function of (previous state, new observation). It never invents a
// change: a resource seen for the first time has no change, and failed polls are handled by
// markStale, which keeps the last known holder.

import { classifyHolderTransition } from "@/lib/poller/classify-holder-transition";
import { signHashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { computeShares } from "@/lib/pulsar/hash-ranges";
import type { ChangeCause, ChangeKind, DetectedChange } from "@/lib/poller/change";
import type { ChangePrediction } from "@/lib/poller/change";
import { scorePrediction } from "@/lib/poller/next-holder";
import { predictNextConsumer } from "@/lib/sources/pulsar/predict-next-consumer";
import { replayConsumerChurn } from "@/lib/sources/pulsar/replay-consumer-churn";
import {
  type BacklogSample,
  type ConsumerObservation,
  MAX_RECENT_SAMPLES,
  type Observation,
  type ResourceIdentity,
  type ResourceState,
} from "@/lib/poller/contract/partition-state";

export type DetectionContext = {
  /** ISO time of the poll that made the observation. */
  pollAt: string;
  /**
   * True when the broker side explains a reconnect of this resource's consumers: every
   * consumer of the topic partition reconnected at once (unload), or the cluster is just back
   * from an outage (broker restart). See detect-broker-reconnects.ts.
   */
  isBrokerSide: boolean;
  /** pollAt minus a minute, computed once per cycle (see appendSample); derived when absent. */
  sampleCutoff?: string;
};

export type Detection = { changes: DetectedChange[]; next: ResourceState };

function connectedSinceOf(consumers: ConsumerObservation[], name: string | null): string | null {
  if (name === null) return null;
  for (const consumer of consumers) if (consumer.name === name) return consumer.connectedSince;
  return null;
}

/**
 * The fast path of a cycle where almost nothing changes: the same consumers, in the same
 * order (the broker keeps them sorted), with the same connections.
 */
export function isSameConsumerSet(before: ConsumerObservation[], after: ConsumerObservation[]): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < before.length; i++) {
    if (before[i]!.name !== after[i]!.name || before[i]!.connectedSince !== after[i]!.connectedSince) return false;
  }
  return true;
}

const NO_CONSUMER_CHANGE = { added: [] as string[], removed: [] as string[], reconnected: [] as string[] };

/** Consumers that joined, left, or reconnected (same name, new connectedSince). */
export function diffConsumers(before: ConsumerObservation[], after: ConsumerObservation[]) {
  const beforeByName = new Map<string, ConsumerObservation>();
  for (const c of before) beforeByName.set(c.name, c);
  const afterNames = new Set<string>();
  const added: string[] = [];
  const reconnected: string[] = [];
  for (const c of after) {
    afterNames.add(c.name);
    const old = beforeByName.get(c.name);
    if (!old) added.push(c.name);
    else if (old.connectedSince !== null && c.connectedSince !== null && old.connectedSince !== c.connectedSince) reconnected.push(c.name);
  }
  const removed: string[] = [];
  for (const c of before) if (!afterNames.has(c.name)) removed.push(c.name);
  return { added, removed, reconnected };
}

/** The broker's connectedSince has nanoseconds ("...12.983817679Z"): compare and store as milliseconds. */
function toMillisIso(time: string | null): string | null {
  if (time === null) return null;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** When the new holder got the hold, as far as the two polls tell. */
function estimateHolderSince(prev: ResourceState | undefined, obs: Observation, pollAt: string): string | null {
  if (obs.holder === null) return null;
  const connectedSince = toMillisIso(connectedSinceOf(obs.consumers, obs.holder));
  if (!prev || prev.lastObservedAt === null) return connectedSince ?? pollAt;
  // It connected inside the interval: that is when it got the hold. A standby promoted in the
  // interval connected earlier; the first poll that saw it holding is all that is known.
  const connectedAt = connectedSince === null ? Number.NaN : Date.parse(connectedSince);
  if (connectedAt > Date.parse(prev.lastObservedAt) && connectedAt <= Date.parse(pollAt)) return connectedSince;
  return pollAt;
}

/** A backlog sample is kept when something moved, or at least this often while nothing does. */
const SAMPLE_EVERY_MS = 60_000;

function hasSameFigures(a: BacklogSample, b: BacklogSample | Observation): boolean {
  return a.backlog === b.backlog && a.msgRateOut === b.msgRateOut && a.holder === b.holder;
}

/**
 * Appends a sample when backlog, rate or holder moved, or the last sample is a minute old: a
 * stuck holder shows as a growing backlog, and most subscriptions sit still between polls.
 *
 * A run of still samples is kept as its first and its latest: the minute's sample of a still
 * resource moves the run's latest forward instead of adding a third equal one. Nothing reads a
 * run's middle (the stuck-leader rule needs the backlog to grow at every sample, and any two
 * equal neighbours already break that), and the 12 samples a still resource held after 12
 * minutes, 120,000 objects at 10,000 resources, were about 8 MB of the worker's heap.
 */
function appendSample(prev: ResourceState | undefined, obs: Observation, ctx: DetectionContext): BacklogSample[] {
  const samples = prev?.recentSamples ?? [];
  const last = samples[samples.length - 1];
  const cutoff = ctx.sampleCutoff ?? new Date(Date.parse(ctx.pollAt) - SAMPLE_EVERY_MS).toISOString();
  const isStill = last !== undefined && hasSameFigures(last, obs);
  if (isStill && last.at > cutoff) return samples;
  const sample: BacklogSample = { at: ctx.pollAt, backlog: obs.backlog, msgRateOut: obs.msgRateOut, holder: obs.holder };
  const beforeLast = samples[samples.length - 2];
  if (isStill && beforeLast !== undefined && hasSameFigures(beforeLast, last)) {
    const next = samples.slice();
    next[next.length - 1] = sample;
    return next;
  }
  const next = samples.length >= MAX_RECENT_SAMPLES ? samples.slice(samples.length - MAX_RECENT_SAMPLES + 1) : samples.slice();
  next.push(sample);
  return next;
}

/**
 * The next state, written out field by field: one fixed shape, cheap to create 100,000 times a
 * cycle. The identity strings come from the previous state when there is one: they are the
 * same text, already hashed as map keys, where the observation's are built afresh each poll.
 */
function buildState(
  identity: ResourceIdentity,
  obs: Observation,
  fields: Omit<ResourceState, keyof Observation> & { subscriptionType: string | null },
): ResourceState {
  return {
    resourceKey: identity.resourceKey,
    topic: identity.topic,
    tenant: identity.tenant,
    namespace: identity.namespace,
    partition: identity.partition,
    subscription: identity.subscription,
    subscriptionType: fields.subscriptionType,
    isDurable: obs.isDurable,
    holder: obs.holder,
    consumers: obs.consumers,
    hashRanges: obs.hashRanges,
    backlog: obs.backlog,
    msgRateOut: obs.msgRateOut,
    holderSince: fields.holderSince,
    lastObservedAt: fields.lastObservedAt,
    staleSince: fields.staleSince,
    lastError: fields.lastError,
    lastErrorAt: fields.lastErrorAt,
    goneAt: fields.goneAt,
    lastChangeAt: fields.lastChangeAt,
    recentSamples: fields.recentSamples,
  };
}

const NO_CHANGES: DetectedChange[] = [];

/**
 * The score of a holder change against the next consumer predicted from `prev`: only when the
 * prediction's premise holds, i.e. the holder left and no other consumer joined or left (a
 * consumer joining or leaving reshuffles partitions whose holder stayed: the rule's "what moves"
 * answers that, not "who is next").
 */
function scoreHolderChange(
  kind: ChangeKind,
  prev: ResourceState,
  toHolder: string | null,
  diff: { added: string[]; removed: string[] },
): ChangePrediction | null {
  const isHolderLeaving = diff.added.length === 0 && diff.removed.length === 1 && diff.removed[0] === prev.holder;
  if (!isHolderLeaving) return null;
  return scorePrediction(kind, predictNextConsumer({ ...prev, consumers: prev.consumers.map((c) => c.name) }), toHolder);
}

/**
 * Nearly every resource in a cycle: observed before, same holder, same connections, no ranges.
 * Its next state, or null when detectChanges must look closer. The fast path of a cycle.
 */
export function nextIfUnchanged(prev: ResourceState, obs: Observation, ctx: DetectionContext): ResourceState | null {
  const isUnchanged =
    prev.lastObservedAt !== null &&
    prev.staleSince === null &&
    prev.holder === obs.holder &&
    prev.hashRanges === null &&
    obs.hashRanges === null &&
    isSameConsumerSet(prev.consumers, obs.consumers);
  if (!isUnchanged) return null;
  return buildState(prev, obs, {
    subscriptionType: obs.subscriptionType ?? prev.subscriptionType,
    holderSince: prev.holderSince,
    lastObservedAt: ctx.pollAt,
    staleSince: null,
    lastError: null,
    lastErrorAt: prev.lastErrorAt,
    goneAt: null,
    lastChangeAt: prev.lastChangeAt,
    recentSamples: appendSample(prev, obs, ctx),
  });
}

export function detectChanges(prev: ResourceState | undefined, obs: Observation, ctx: DetectionContext): Detection {
  const unchanged = prev === undefined ? null : nextIfUnchanged(prev, obs, ctx);
  if (unchanged !== null) return { changes: NO_CHANGES, next: unchanged };
  const changes: DetectedChange[] = [];
  const isKnown = prev !== undefined && prev.lastObservedAt !== null;
  let holderSince = prev?.holderSince ?? null;

  if (isKnown) {
    const isDuringGap = prev.staleSince !== null;
    const consumerDiff = isSameConsumerSet(prev.consumers, obs.consumers) ? NO_CONSUMER_CHANGE : diffConsumers(prev.consumers, obs.consumers);
    // The holder's own reconnect is a hidden flap, not a change of the standbys.
    const standbysReconnected = consumerDiff.reconnected.filter((name) => name !== obs.holder);
    const hasConsumerChange = consumerDiff.added.length > 0 || consumerDiff.removed.length > 0 || standbysReconnected.length > 0;
    const cause: ChangeCause = ctx.isBrokerSide ? "BROKER" : isDuringGap ? "UNKNOWN" : "CLIENT";
    const base = { resourceKey: obs.resourceKey, cause, oldSeenAt: prev.lastObservedAt, newSeenAt: ctx.pollAt, isDuringGap };
    const push = (kind: ChangeKind, fromHolder: string | null, toHolder: string | null, details: Record<string, unknown> = {}) =>
      changes.push({
        ...base,
        kind,
        fromHolder,
        toHolder,
        details: { consumersBefore: prev.consumers.map((c) => c.name), consumersAfter: obs.consumers.map((c) => c.name), ...consumerDiff, ...details },
      });

    // The holder's session is its connection: a new connectedSince under the same name means it
    // lost the hold and regained it, or the hold moved away and back between the two polls.
    const sessionBefore = connectedSinceOf(prev.consumers, prev.holder);
    const sessionAfter = connectedSinceOf(obs.consumers, obs.holder);
    const transition = classifyHolderTransition({ holder: prev.holder, session: sessionBefore }, { holder: obs.holder, session: sessionAfter });
    const hasHolderChange = transition !== null && transition !== "HIDDEN_FLAP";
    if (transition === "HIDDEN_FLAP") push(transition, prev.holder, obs.holder, { connectedSinceBefore: sessionBefore, connectedSinceAfter: sessionAfter });
    else if (transition !== null) {
      push(transition, prev.holder, obs.holder);
      const prediction = scoreHolderChange(transition, prev, obs.holder, consumerDiff);
      if (prediction !== null) changes[changes.length - 1]!.prediction = prediction;
    }
    if (transition !== null) holderSince = estimateHolderSince(prev, obs, ctx.pollAt);

    // The holder stayed connected while consumers joined and left within the poll: the rule,
    // replayed over the sets in between, may have handed it away and back.
    if (transition === null && !isDuringGap) {
      const replay = replayConsumerChurn({
        topic: obs.topic,
        partition: obs.partition,
        subscriptionType: obs.subscriptionType ?? prev.subscriptionType,
        holder: obs.holder,
        before: prev.consumers.map((c) => c.name),
        added: consumerDiff.added,
        removed: consumerDiff.removed,
      });
      if (replay !== null) push("REPLAYED_FLAP", prev.holder, obs.holder, { via: replay.via, isCertain: replay.isCertain });
    }

    // A consumer-set change that moved no holder gets its own row; one that did is in the
    // holder change's details (it explains it).
    if (hasConsumerChange && !hasHolderChange) push("CONSUMERS_CHANGED", prev.holder, obs.holder);

    const hasRanges = prev.hashRanges !== null || obs.hashRanges !== null;
    if (hasRanges && signHashRangeSplit(prev.hashRanges) !== signHashRangeSplit(obs.hashRanges)) {
      const sharesBefore = prev.hashRanges ? computeShares(prev.hashRanges) : {};
      const sharesAfter = obs.hashRanges ? computeShares(obs.hashRanges) : {};
      const names = new Set([...Object.keys(sharesBefore), ...Object.keys(sharesAfter)]);
      const shareDelta = Object.fromEntries([...names].map((n) => [n, (sharesAfter[n] ?? 0) - (sharesBefore[n] ?? 0)]));
      push("RANGES_MOVED", null, null, { sharesBefore, sharesAfter, shareDelta });
    }
  } else {
    holderSince = estimateHolderSince(undefined, obs, ctx.pollAt);
  }

  const next = buildState(prev ?? obs, obs, {
    // Without consumers the broker does not say the type; the last known one still holds.
    subscriptionType: obs.subscriptionType ?? prev?.subscriptionType ?? null,
    holderSince,
    lastObservedAt: ctx.pollAt,
    staleSince: null,
    lastError: null,
    lastErrorAt: prev?.lastErrorAt ?? null,
    goneAt: null,
    lastChangeAt: changes.length > 0 ? ctx.pollAt : (prev?.lastChangeAt ?? null),
    recentSamples: appendSample(prev, obs, ctx),
  });
  return { changes, next };
}
