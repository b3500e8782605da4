import "server-only";

import {
  partitionedMetadataSchema,
  type PartitionedTopicStats,
  partitionedTopicStatsSchema,
  stringListSchema,
  type TopicStats,
  topicStatsSchema,
} from "@/lib/pulsar/schemas";
import { type AdminTarget, requestAdmin } from "@/lib/pulsar/transport";
import { type TopicName, topicPath } from "@/lib/pulsar/topic-name";

// One exported function per admin endpoint Baton uses. Every answer goes through a schema.

/**
 * Ask only for what the poller needs: no publishers, no precise or sized backlog (both lock or
 * scan the ledger), no earliest-time read (one BookKeeper read per backlogged subscription).
 * Never excludeConsumers: the consumers are the point.
 */
export const STATS_QUERY = "excludePublishers=true&getPreciseBacklog=false&subscriptionBacklogSize=false&getEarliestTimeInBacklog=false";

export function listTenants(target: AdminTarget): Promise<string[]> {
  return requestAdmin(target, "admin/v2/tenants", stringListSchema);
}

/** Namespaces of a tenant, as "tenant/namespace". */
export function listNamespaces(target: AdminTarget, tenant: string): Promise<string[]> {
  return requestAdmin(target, `admin/v2/namespaces/${encodeURIComponent(tenant)}`, stringListSchema);
}

/**
 * Every topic of a namespace, persistent and non-persistent, partitions included
 * (`...-partition-N`), system topics excluded.
 */
export function listTopics(target: AdminTarget, namespace: string): Promise<string[]> {
  return requestAdmin(target, `admin/v2/namespaces/${namespace}/topics?mode=ALL&includeSystemTopic=false`, stringListSchema);
}

/** Partitioned topics (base names) of a namespace for one persistence. */
export function listPartitionedTopics(target: AdminTarget, namespace: string, persistence: "persistent" | "non-persistent"): Promise<string[]> {
  return requestAdmin(target, `admin/v2/${persistence}/${namespace}/partitioned?includeSystemTopic=false`, stringListSchema);
}

export async function getPartitionCount(target: AdminTarget, topic: TopicName): Promise<number> {
  return (await requestAdmin(target, `admin/v2/${topicPath(topic)}/partitions`, partitionedMetadataSchema)).partitions;
}

/** Where stats answers are bounded: the target's maxStatsBytes (absent: no limit). */
export type StatsTarget = AdminTarget & { maxStatsBytes?: number };

/** Stats of a non-partitioned topic, or of one partition. */
export function getTopicStats(target: StatsTarget, topic: TopicName): Promise<TopicStats> {
  return requestAdmin(target, `admin/v2/${topicPath(topic)}/stats?${STATS_QUERY}`, topicStatsSchema, { maxBytes: target.maxStatsBytes });
}

/**
 * Stats of every partition of a partitioned topic in one request (the broker fans out).
 * Leaders must be read from `partitions`, never from the aggregate: the aggregate drops
 * activeConsumerName and merges consumers by list index.
 */
export function getPartitionedStats(target: StatsTarget, topic: TopicName): Promise<PartitionedTopicStats> {
  return requestAdmin(target, `admin/v2/${topicPath(topic)}/partitioned-stats?perPartition=true&${STATS_QUERY}`, partitionedTopicStatsSchema, {
    maxBytes: target.maxStatsBytes,
  });
}
