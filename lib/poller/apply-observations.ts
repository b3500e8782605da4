// One poll cycle's results applied to the previous states: the new states and the changes.
// Pure: the cycle's I/O happens before (fetch) and after (store).

import { findReconnectedPartitions, isBrokerSideChange } from "@/lib/poller/detect-broker-reconnects";
import { detectChanges, markGone, markStale } from "@/lib/poller/detect-changes";
import type { TopicFetchResult } from "@/lib/poller/fetch-topic-observations";
import type { DetectedChange, ResourceState } from "@/lib/poller/observation";

export type CycleInput = {
  previous: ReadonlyMap<string, ResourceState>;
  results: readonly TopicFetchResult[];
  pollAt: string;
  /** The cluster's polls failed until recently (a broker restart): see detect-broker-reconnects. */
  isRecoveringFromOutage: boolean;
  /** Topics discovery no longer finds. */
  removedTopics?: readonly string[];
};

export type CycleOutcome = {
  /** Every state that this cycle touched (observed, stale or gone). */
  states: ResourceState[];
  changes: DetectedChange[];
  errors: { topic: string; message: string }[];
};

type TopicIndex = {
  states: ResourceState[];
  /** subscription -> states by partition + 1 (index 0: the non-partitioned topic). */
  bySubscription: Map<string, (ResourceState | undefined)[]>;
};

/**
 * The previous states by topic, subscription and partition. Looking up a built
 * "topic|subscription|partition" key costs a fresh string hash per resource; the topic name is
 * the same string every cycle and subscription names come from JSON keys (interned).
 */
function indexByTopic(previous: ReadonlyMap<string, ResourceState>): Map<string, TopicIndex> {
  const index = new Map<string, TopicIndex>();
  for (const state of previous.values()) {
    let entry = index.get(state.topic);
    if (!entry) index.set(state.topic, (entry = { states: [], bySubscription: new Map() }));
    entry.states.push(state);
    let byPartition = entry.bySubscription.get(state.subscription);
    if (!byPartition) entry.bySubscription.set(state.subscription, (byPartition = []));
    byPartition[state.partition + 1] = state;
  }
  return index;
}

export function applyObservations(input: CycleInput): CycleOutcome {
  const { previous, pollAt } = input;
  const byTopic = indexByTopic(previous);
  const sampleCutoff = new Date(Date.parse(pollAt) - 60_000).toISOString();

  const states: ResourceState[] = [];
  const changes: DetectedChange[] = [];
  const errors: CycleOutcome["errors"] = [];

  for (const result of input.results) {
    const topicIndex = byTopic.get(result.topic.fullName);
    const known = topicIndex?.states ?? [];
    if (!result.isOk) {
      errors.push({ topic: result.topic.fullName, message: result.error });
      // 404: the topic was deleted. Anything else: nothing is known now; keep the last state.
      for (const prev of known) states.push(result.isNotFound ? markGone(prev, pollAt) : markStale(prev, result.error, pollAt));
      continue;
    }
    // Identity, not keys: hashing a fresh key string per resource is what a cycle cannot afford.
    const observed = new Set<ResourceState>();
    // One lookup per resource, shared by the reconnect check and the detection.
    const prevs = result.observations.map((obs) => topicIndex?.bySubscription.get(obs.subscription)?.[obs.partition + 1]);
    const reconnectedPartitions = findReconnectedPartitions(result.observations, prevs);
    for (let i = 0; i < result.observations.length; i++) {
      const obs = result.observations[i]!;
      const prev = prevs[i];
      if (prev) observed.add(prev);
      const isBrokerSide = isBrokerSideChange(prev, obs, reconnectedPartitions, input.isRecoveringFromOutage);
      const detection = detectChanges(prev, obs, { pollAt, isBrokerSide, sampleCutoff });
      states.push(detection.next);
      for (const change of detection.changes) changes.push(change);
    }
    const missing = new Set(result.missingPartitions);
    if (missing.size > 0) errors.push({ topic: result.topic.fullName, message: `the broker left partitions ${[...missing].join(", ")} out of partitioned-stats` });
    for (const prev of known) {
      if (observed.has(prev) || prev.goneAt !== null) continue;
      states.push(
        missing.has(prev.partition)
          ? markStale(prev, `the broker left partition ${prev.partition} out of partitioned-stats`, pollAt)
          : markGone(prev, pollAt), // the subscription (or partition) no longer exists
      );
    }
  }
  for (const topic of input.removedTopics ?? []) {
    for (const prev of byTopic.get(topic)?.states ?? []) if (prev.goneAt === null) states.push(markGone(prev, pollAt));
  }
  return { states, changes, errors };
}
