// Telling a broker-side event (topic unload, broker restart) from a client-side failover.
// Pure. A topic unload makes every consumer of the topic reconnect: all their connectedSince
// move at once. One client failing over moves only its own consumers.

import { isSameConsumerSet } from "@/lib/poller/detect-changes";
import type { Observation, ResourceState } from "@/lib/poller/observation";

/** Groups resources by topic partition: "persistent://t/ns/x|3". */
function topicPartitionOf(resource: { topic: string; partition: number }): string {
  return `${resource.topic}|${resource.partition}`;
}

/**
 * Topic partitions whose consumers all reconnected between the two polls: at least two
 * consumers were connected before (across all subscriptions), and none of them kept its
 * connection (each is gone or has a new connectedSince).
 */
export function findTopicWideReconnects(previous: ReadonlyMap<string, ResourceState>, results: readonly { isOk: boolean; observations?: readonly Observation[] }[]): Set<string> {
  const result = new Set<string>();
  for (const topicResult of results) {
    if (!topicResult.isOk || !topicResult.observations) continue;
    // Per partition of this topic: consumers connected before, and whether any kept its connection.
    const consumersBefore = new Map<number, number>();
    const kept = new Set<number>();
    for (const obs of topicResult.observations) {
      const prev = previous.get(obs.resourceKey);
      if (!prev || prev.lastObservedAt === null || prev.consumers.length === 0) continue;
      consumersBefore.set(obs.partition, (consumersBefore.get(obs.partition) ?? 0) + prev.consumers.length);
      if (kept.has(obs.partition)) continue;
      if (isSameConsumerSet(prev.consumers, obs.consumers) || !haveAllConsumersReconnected(prev, obs)) kept.add(obs.partition);
    }
    for (const [partition, count] of consumersBefore) {
      if (count >= 2 && !kept.has(partition)) result.add(topicPartitionOf({ topic: topicResult.observations[0]!.topic, partition }));
    }
  }
  return result;
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
 * partition reconnected (unload), or the cluster is just back from an outage (broker restart)
 * and this resource lost every connection it had.
 */
export function isBrokerSideChange(
  prev: ResourceState | undefined,
  obs: Observation,
  topicWideReconnects: ReadonlySet<string>,
  isRecoveringFromOutage: boolean,
): boolean {
  if (topicWideReconnects.size > 0 && topicWideReconnects.has(topicPartitionOf(obs))) return true;
  if (!isRecoveringFromOutage || !prev) return false;
  // After a restart every subscription is briefly leaderless, then its clients reconnect.
  return haveAllConsumersReconnected(prev, obs) || (prev.consumers.length === 0 && obs.consumers.length > 0);
}
