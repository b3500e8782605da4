import "server-only";

import type { PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";
import type { WatchedTopic } from "@/lib/sources/pulsar/discover-topics";
import type { Observation } from "@/lib/poller/contract/partition-state";
import { observeTopicStats } from "@/lib/sources/pulsar/observe-topic";
import type { RateLimiter } from "@/lib/poller/rate-limiter";
import { getPartitionedStats, getTopicStats } from "@/lib/pulsar/admin-client";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { PulsarAdminError } from "@/lib/pulsar/transport";

export type TopicFetchResult =
  | {
      topic: WatchedTopic;
      isOk: true;
      /** ISO time this topic's answer arrived: the bound of its changes, not the cycle's end. */
      observedAt: string;
      observations: Observation[];
      /** Partitions the broker left out of partitioned-stats (a failed fan-out): stale, not gone. */
      missingPartitions: number[];
      partitionCount: number;
      /** The answer covers only these partitions (a re-poll of some): the others are left as they are. */
      onlyPartitions?: number[];
    }
  | { topic: WatchedTopic; isOk: false; observedAt: string; error: string; isNotFound: boolean; retryAfterSeconds?: number };

function describeError(error: unknown, target: PulsarClusterConfig, topic: WatchedTopic): { error: string; isNotFound: boolean; retryAfterSeconds?: number } {
  if (error instanceof PulsarAdminError && error.kind === "too-large") {
    return { error: `the stats of ${topic.fullName} are larger than the cluster's maxStatsBytes (${target.maxStatsBytes} bytes): not read`, isNotFound: false };
  }
  if (error instanceof PulsarAdminError) return { error: error.message, isNotFound: error.status === 404, retryAfterSeconds: error.retryAfterSeconds };
  return { error: (error as Error).message, isNotFound: false };
}

export type FetchOptions = { isUrgent?: boolean };

/** One stats request for one topic (all partitions at once), turned into observations. */
export async function fetchTopicObservations(
  target: PulsarClusterConfig,
  topic: WatchedTopic,
  limiter: RateLimiter,
  options: FetchOptions = {},
): Promise<TopicFetchResult> {
  try {
    if (!topic.isPartitioned) {
      const stats = await limiter.run(() => getTopicStats(target, topic.name), 1, options);
      const observedAt = new Date().toISOString();
      return { topic, isOk: true, observedAt, observations: observeTopicStats(topic.name, -1, stats), missingPartitions: [], partitionCount: 0 };
    }
    const stats = await limiter.run(() => getPartitionedStats(target, topic.name), 1, options);
    const observedAt = new Date().toISOString();
    const seen = new Set<number>();
    const observations: Observation[] = [];
    for (const [partitionName, partitionStats] of Object.entries(stats.partitions)) {
      const parsed = parseTopicName(partitionName);
      if (!parsed || parsed.partition < 0) continue;
      seen.add(parsed.partition);
      observations.push(...observeTopicStats(topic.name, parsed.partition, partitionStats));
    }
    const missingPartitions: number[] = [];
    for (let p = 0; p < stats.metadata.partitions; p++) if (!seen.has(p)) missingPartitions.push(p);
    return { topic, isOk: true, observedAt, observations, missingPartitions, partitionCount: stats.metadata.partitions };
  } catch (error) {
    return { topic, isOk: false, observedAt: new Date().toISOString(), ...describeError(error, target, topic) };
  }
}

/** One partition of a partitioned topic, read on its own (`.../topic-partition-N/stats`): one request, a small answer. */
export async function fetchPartitionObservations(
  target: PulsarClusterConfig,
  topic: WatchedTopic,
  partition: number,
  limiter: RateLimiter,
  options: FetchOptions = {},
): Promise<TopicFetchResult> {
  try {
    const partitionName = { ...topic.name, local: `${topic.name.local}-partition-${partition}` };
    const stats = await limiter.run(() => getTopicStats(target, partitionName), 1, options);
    const observedAt = new Date().toISOString();
    return {
      topic,
      isOk: true,
      observedAt,
      observations: observeTopicStats(topic.name, partition, stats),
      missingPartitions: [],
      partitionCount: 0,
      onlyPartitions: [partition],
    };
  } catch (error) {
    return { topic, isOk: false, observedAt: new Date().toISOString(), ...describeError(error, target, topic) };
  }
}
