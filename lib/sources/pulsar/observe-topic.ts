// Turns a topic's stats (one partition, or a non-partitioned topic) into observations of its
// subscriptions. Pure but for the shared texts below.

import type { ConsumerObservation, Observation } from "@/lib/poller/contract/partition-state";
import { buildHashRangeSplit, parseConsumerRanges } from "@/lib/pulsar/hash-ranges";
import type { ConsumerStats, SubscriptionStats, TopicStats } from "@/lib/pulsar/schemas";
import { formatTopicName, pulsarResourceKey, type TopicName } from "@/lib/pulsar/topic-name";

/** Pulsar's own durable subscription for compaction: not a consumer group of the user's. */
export const COMPACTION_SUBSCRIPTION = "__compaction";

// A state lives for as long as its resource and keeps the strings of its first observation. Built
// afresh for each partition and each consumer, the same texts were held thousands of times (at
// 10,000 partition-subscriptions: the topic's name 16,000 times, its namespace 20,000, the client
// version of every consumer: 4.5 MB of the worker's heap). These share them.

/** A topic's full name and namespace, once per discovered topic (its TopicName lives as long as it is watched). */
const topicTexts = new WeakMap<TopicName, { topic: string; namespace: string }>();

function textsOf(topic: TopicName): { topic: string; namespace: string } {
  let texts = topicTexts.get(topic);
  if (!texts) topicTexts.set(topic, (texts = { topic: formatTopicName(topic), namespace: `${topic.tenant}/${topic.namespace}` }));
  return texts;
}

/** Client versions: a fleet runs a handful. Bounded, so that odd clients cannot grow it. */
const clientVersions = new Map<string, string>();
const MAX_CLIENT_VERSIONS = 256;

function sharedClientVersion(version: string | undefined): string | null {
  if (version === undefined) return null;
  const known = clientVersions.get(version);
  if (known !== undefined) return known;
  if (clientVersions.size < MAX_CLIENT_VERSIONS) clientVersions.set(version, version);
  return version;
}

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
    clientVersion: sharedClientVersion(consumer.clientVersion ?? undefined),
  };
}

function observeSubscription(topic: TopicName, partition: number, name: string, stats: SubscriptionStats): Observation {
  const { topic: topicName, namespace } = textsOf(topic);
  const consumers = stats.consumers.map(observeConsumer);
  return {
    resourceKey: pulsarResourceKey(topicName, name, partition),
    topic: topicName,
    tenant: topic.tenant,
    namespace,
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
