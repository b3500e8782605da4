// Turns a topic's stats (one partition, or a non-partitioned topic) into observations of its
// subscriptions. Pure.

import type { ConsumerObservation, Observation } from "@/lib/sources/pulsar/observation";
import { buildHashRangeSplit, parseConsumerRanges } from "@/lib/pulsar/hash-ranges";
import type { ConsumerStats, SubscriptionStats, TopicStats } from "@/lib/pulsar/schemas";
import { formatTopicName, pulsarResourceKey, type TopicName } from "@/lib/pulsar/topic-name";

/** Pulsar's own durable subscription for compaction: not a consumer group of the user's. */
export const COMPACTION_SUBSCRIPTION = "__compaction";

function observeConsumer(consumer: ConsumerStats, index: number): ConsumerObservation {
  return {
    // A consumer without a name (apache/pulsar#23671) still counts, under a stable placeholder.
    name: consumer.consumerName ?? `(unnamed ${index + 1})`,
    connectedSince: consumer.connectedSince ?? null,
    msgRateOut: consumer.msgRateOut ?? null,
    availablePermits: consumer.availablePermits ?? null,
    unackedMessages: consumer.unackedMessages ?? null,
    lastConsumedAt: consumer.lastConsumedTimestamp && consumer.lastConsumedTimestamp > 0 ? consumer.lastConsumedTimestamp : null,
    address: consumer.address ?? null,
    clientVersion: consumer.clientVersion ?? null,
  };
}

function observeSubscription(topic: TopicName, partition: number, name: string, stats: SubscriptionStats): Observation {
  const topicName = formatTopicName(topic);
  const consumers = stats.consumers.map(observeConsumer);
  return {
    resourceKey: pulsarResourceKey(topicName, name, partition),
    topic: topicName,
    tenant: topic.tenant,
    namespace: `${topic.tenant}/${topic.namespace}`,
    partition,
    subscription: name,
    // A subscription without consumers has no dispatcher: the broker says "None".
    subscriptionType: stats.type && stats.type !== "None" ? stats.type : null,
    isDurable: stats.isDurable ?? stats.durable ?? true,
    holder: stats.activeConsumerName ?? null,
    consumers,
    hashRanges: buildHashRangeSplit(stats.consumers.map((c, i) => ({ name: consumers[i]!.name, ranges: parseConsumerRanges(c) }))),
    // -1 means "not computed" on some versions; that is not a backlog.
    backlog: stats.msgBacklog !== undefined && stats.msgBacklog >= 0 ? stats.msgBacklog : null,
    msgRateOut: stats.msgRateOut ?? null,
  };
}

/** Observations of every subscription of one topic partition (partition -1: not partitioned). */
export function observeTopicStats(topic: TopicName, partition: number, stats: TopicStats): Observation[] {
  return Object.entries(stats.subscriptions)
    .filter(([name]) => name !== COMPACTION_SUBSCRIPTION)
    .map(([name, subscription]) => observeSubscription(topic, partition, name, subscription));
}
