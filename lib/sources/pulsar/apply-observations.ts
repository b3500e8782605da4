// One poll cycle's results applied to the previous states: the new states and the changes.
// Pure: the cycle's I/O happens before (fetch) and after (store).

import { findReconnectedPartitions, isBrokerSideChange } from "@/lib/sources/pulsar/detect-broker-reconnects";
import { markGone, markStale } from "@/lib/poller/mark-gaps";
import { detectChanges, nextIfUnchanged } from "@/lib/sources/pulsar/detect-changes";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { DetectedChange } from "@/lib/poller/change";
import type { ResourceState } from "@/lib/poller/contract/partition-state";
import { type ResourceStateIndex, statesOf, type TopicStates } from "@/lib/sources/pulsar/resource-state-index";

export type CycleInput = {
  /** The states before this cycle; not modified (the caller stores the outcome's states). */
  previous: ResourceStateIndex;
  results: readonly TopicFetchResult[];
  /** The cycle's end: when discovery's removals are recorded. Each result carries its own time. */
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

/** Known resources of the topic that this poll did not return: stale (left out) or gone. */
function markUnobserved(
  known: TopicStates | undefined,
  observed: readonly (ResourceState | undefined)[],
  result: TopicFetchResult & { isOk: true },
  pollAt: string,
): ResourceState[] {
  const seen = new Set(observed);
  const missing = new Set(result.missingPartitions);
  const covered = result.onlyPartitions ? new Set(result.onlyPartitions) : null;
  const states: ResourceState[] = [];
  for (const prev of statesOf(known)) {
    if (seen.has(prev) || prev.goneAt !== null) continue;
    if (covered !== null && !covered.has(prev.partition)) continue; // not read this time: left as it is
    states.push(
      missing.has(prev.partition) ? markStale(prev, `the broker left partition ${prev.partition} out of partitioned-stats`, pollAt) : markGone(prev, pollAt), // the subscription (or partition) no longer exists
    );
  }
  return states;
}

function countActive(states: Iterable<ResourceState | undefined>): number {
  let count = 0;
  for (const state of states) if (state !== undefined && state.goneAt === null) count++;
  return count;
}

export function applyObservations(input: CycleInput): CycleOutcome {
  const { previous, pollAt } = input;
  const states: ResourceState[] = [];
  const changes: DetectedChange[] = [];
  const errors: CycleOutcome["errors"] = [];

  for (const result of input.results) {
    const known = previous.topic(result.topic.fullName);
    // A slow answer (a broker restarting) must not stretch the interval of changes it shows.
    const at = result.observedAt;
    if (!result.isOk) {
      errors.push({ topic: result.topic.fullName, message: result.error });
      // 404: the topic was deleted. Anything else: nothing is known now; keep the last state.
      for (const prev of statesOf(known)) states.push(result.isNotFound ? markGone(prev, at) : markStale(prev, result.error, at));
      continue;
    }
    const ctx = { pollAt: at, isBrokerSide: false, sampleCutoff: new Date(Date.parse(at) - 60_000).toISOString() };
    const { observations } = result;
    const prevs = observations.map((obs) => known?.get(obs.subscription)?.[obs.partition + 1]);
    // Nearly every resource is unchanged: its next state is made at once. The rest (and the
    // reconnect check that explains them) only when there is a rest.
    let changedIndexes: number[] | null = null;
    for (let i = 0; i < observations.length; i++) {
      const prev = prevs[i];
      const next = prev === undefined ? null : nextIfUnchanged(prev, observations[i]!, ctx);
      if (next !== null) states.push(next);
      else (changedIndexes ??= []).push(i);
    }
    if (changedIndexes !== null) {
      const reconnectedPartitions = findReconnectedPartitions(observations, prevs);
      for (const i of changedIndexes) {
        const obs = observations[i]!;
        const prev = prevs[i];
        const isBrokerSide = isBrokerSideChange(prev, obs, reconnectedPartitions, input.isRecoveringFromOutage);
        const detection = detectChanges(prev, obs, { ...ctx, isBrokerSide });
        states.push(detection.next);
        for (const change of detection.changes) changes.push(change);
      }
    }
    if (result.missingPartitions.length > 0)
      errors.push({
        topic: result.topic.fullName,
        message: `the broker left partitions ${[...new Set(result.missingPartitions)].join(", ")} out of partitioned-stats`,
      });
    // Counting first: a topic whose every known resource was observed again (nearly all) needs no set.
    if (known !== undefined && (result.onlyPartitions !== undefined || countActive(prevs) !== countActive(statesOf(known)))) {
      for (const state of markUnobserved(known, prevs, result, at)) states.push(state);
    }
  }
  for (const topic of input.removedTopics ?? []) {
    for (const prev of statesOf(previous.topic(topic))) if (prev.goneAt === null) states.push(markGone(prev, pollAt));
  }
  return { states, changes, errors };
}
