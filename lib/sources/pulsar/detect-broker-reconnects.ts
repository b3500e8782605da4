// Telling a broker-side event (topic unload, broker restart) from a client-side failover.
// Pure. A topic unload makes every consumer of the topic reconnect: all their connectedSince
// move at once. One client failing over moves only its own consumers.

import { isSameConsumerSet } from "@/lib/sources/pulsar/detect-changes";
import type { Observation, ResourceState } from "@/lib/poller/contract/partition-state";

/**
 * Partitions of one topic whose consumers all reconnected between the two polls: at least two
 * consumers were connected before (across all subscriptions), and none of them kept its
 * connection (each is gone or has a new connectedSince). `previous[i]` is the state before
 * `observations[i]`.
 */
const NONE: ReadonlySet<number> = new Set();

export function findReconnectedPartitions(observations: readonly Observation[], previous: readonly (ResourceState | undefined)[]): ReadonlySet<number> {
  // Nearly always nobody reconnected anywhere in the topic: say so without building anything.
  let isAnyConsumerSetChanged = false;
  for (let i = 0; i < observations.length && !isAnyConsumerSetChanged; i++) {
    const prev = previous[i];
    if (prev && prev.consumers.length > 0 && !isSameConsumerSet(prev.consumers, observations[i]!.consumers)) isAnyConsumerSetChanged = true;
  }
  if (!isAnyConsumerSetChanged) return NONE;
  const consumersBefore = new Map<number, number>();
  const kept = new Set<number>();
  for (let i = 0; i < observations.length; i++) {
    const obs = observations[i]!;
    const prev = previous[i];
    if (!prev || prev.lastObservedAt === null || prev.consumers.length === 0) continue;
    consumersBefore.set(obs.partition, (consumersBefore.get(obs.partition) ?? 0) + prev.consumers.length);
    if (kept.has(obs.partition)) continue;
    if (isSameConsumerSet(prev.consumers, obs.consumers) || !haveAllConsumersReconnected(prev, obs)) kept.add(obs.partition);
  }
  const reconnected = new Set<number>();
  for (const [partition, count] of consumersBefore) if (count >= 2 && !kept.has(partition)) reconnected.add(partition);
  return reconnected;
}

/** True when the resource had consumers and none of them kept its connection. */
export function haveAllConsumersReconnected(prev: ResourceState, obs: Observation): boolean {
  if (prev.consumers.length === 0) return false;
  for (const before of prev.consumers) {
    for (const after of obs.consumers) if (after.name === before.name && after.connectedSince === before.connectedSince) return false;
  }
  return true;
}

/**
 * Whether the broker side explains the changes of one resource in this poll: its whole topic
 * partition reconnected (unload: see findReconnectedPartitions), or the cluster is just back from an outage (broker restart)
 * and this resource lost every connection it had.
 */
export function isBrokerSideChange(
  prev: ResourceState | undefined,
  obs: Observation,
  reconnectedPartitions: ReadonlySet<number>,
  isRecoveringFromOutage: boolean,
): boolean {
  if (reconnectedPartitions.has(obs.partition)) return true;
  if (!isRecoveringFromOutage || !prev) return false;
  // After a restart every subscription is briefly leaderless, then its clients reconnect.
  return haveAllConsumersReconnected(prev, obs) || (prev.consumers.length === 0 && obs.consumers.length > 0);
}
