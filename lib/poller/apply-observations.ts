// One poll cycle's results applied to the previous states: the new states and the changes.
// Pure: the cycle's I/O happens before (fetch) and after (store).

import { findTopicWideReconnects, isBrokerSideChange } from "@/lib/poller/detect-broker-reconnects";
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

function groupByTopic(previous: ReadonlyMap<string, ResourceState>): Map<string, ResourceState[]> {
  const byTopic = new Map<string, ResourceState[]>();
  for (const state of previous.values()) {
    let list = byTopic.get(state.topic);
    if (!list) byTopic.set(state.topic, (list = []));
    list.push(state);
  }
  return byTopic;
}

export function applyObservations(input: CycleInput): CycleOutcome {
  const { previous, pollAt } = input;
  const byTopic = groupByTopic(previous);
  const topicWide = findTopicWideReconnects(previous, input.results);

  const states: ResourceState[] = [];
  const changes: DetectedChange[] = [];
  const errors: CycleOutcome["errors"] = [];

  for (const result of input.results) {
    const known = byTopic.get(result.topic.fullName) ?? [];
    if (!result.isOk) {
      errors.push({ topic: result.topic.fullName, message: result.error });
      // 404: the topic was deleted. Anything else: nothing is known now; keep the last state.
      for (const prev of known) states.push(result.isNotFound ? markGone(prev, pollAt) : markStale(prev, result.error, pollAt));
      continue;
    }
    const observedKeys = new Set<string>();
    for (const obs of result.observations) {
      observedKeys.add(obs.resourceKey);
      const prev = previous.get(obs.resourceKey);
      const isBrokerSide = isBrokerSideChange(prev, obs, topicWide, input.isRecoveringFromOutage);
      const detection = detectChanges(prev, obs, { pollAt, isBrokerSide });
      states.push(detection.next);
      for (const change of detection.changes) changes.push(change);
    }
    const missing = new Set(result.missingPartitions);
    if (missing.size > 0) errors.push({ topic: result.topic.fullName, message: `the broker left partitions ${[...missing].join(", ")} out of partitioned-stats` });
    for (const prev of known) {
      if (observedKeys.has(prev.resourceKey) || prev.goneAt !== null) continue;
      states.push(
        missing.has(prev.partition)
          ? markStale(prev, `the broker left partition ${prev.partition} out of partitioned-stats`, pollAt)
          : markGone(prev, pollAt), // the subscription (or partition) no longer exists
      );
    }
  }
  for (const topic of input.removedTopics ?? []) {
    for (const prev of byTopic.get(topic) ?? []) if (prev.goneAt === null) states.push(markGone(prev, pollAt));
  }
  return { states, changes, errors };
}
