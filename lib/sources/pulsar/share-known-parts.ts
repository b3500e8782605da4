// An answer's observations wait in memory until their sweep ends (20 s at 1,000 topics), long
// enough for V8 to move them to its old generation. Most of what they hold equals what the
// resource's current state already holds: the same identity texts, the same consumers with the
// same figures. This hands an observation the state's own values where they are equal, as soon as
// its answer arrives, so that the copies parsed from the answer die young and a sweep keeps one
// set of consumers, not two. Equal values only: what a cycle computes from it is unchanged.

import type { ConsumerObservation, Observation } from "@/lib/poller/contract/partition-state";
import type { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";

function isSameConsumer(a: ConsumerObservation, b: ConsumerObservation): boolean {
  return (
    a.name === b.name &&
    a.connectedSince === b.connectedSince &&
    a.msgRateOut === b.msgRateOut &&
    a.availablePermits === b.availablePermits &&
    a.unackedMessages === b.unackedMessages &&
    a.lastConsumedAt === b.lastConsumedAt &&
    a.address === b.address &&
    a.clientVersion === b.clientVersion
  );
}

/**
 * The consumers of `next`, with each one equal to the known consumer at its place replaced by the
 * known one; the known array itself when every consumer is equal.
 */
export function shareConsumers(known: ConsumerObservation[], next: ConsumerObservation[]): ConsumerObservation[] {
  let shared: ConsumerObservation[] | null = null;
  let isAllKnown = known.length === next.length;
  for (let i = 0; i < next.length; i++) {
    const candidate = known[i];
    if (candidate !== undefined && isSameConsumer(candidate, next[i]!)) {
      if (candidate !== next[i]) (shared ??= next.slice())[i] = candidate;
    } else {
      isAllKnown = false;
    }
  }
  if (isAllKnown) return known;
  return shared ?? next;
}

/**
 * Points the observations of a fresh answer (built for this result alone, not yet shared) at the
 * equal parts of the states they will replace. Returns the result.
 */
export function shareKnownParts(result: TopicFetchResult, states: ResourceStateIndex): TopicFetchResult {
  if (!result.isOk) return result;
  const known = states.topic(result.topic.fullName);
  if (known === undefined) return result;
  for (const obs of result.observations) {
    const prev = known.get(obs.subscription)?.[obs.partition + 1];
    if (prev === undefined) continue;
    shareIdentity(obs, prev);
    obs.consumers = shareConsumers(prev.consumers, obs.consumers);
  }
  return result;
}

function shareIdentity(obs: Observation, prev: Observation): void {
  if (obs.resourceKey === prev.resourceKey) obs.resourceKey = prev.resourceKey;
  if (obs.subscription === prev.subscription) obs.subscription = prev.subscription;
}
