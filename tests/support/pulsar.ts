// The real Pulsar broker for integration tests. The integration project's global setup starts one
// broker per run (startTestBroker) and passes it to the test files in the environment; tests reach
// it through getTestBroker(), make their own uniquely named tenant, and delete it afterwards.

import { z } from "zod";

import { getTopicStats as fetchTopicStats, STATS_QUERY } from "@/lib/pulsar/admin-client";
import { partitionedTopicStatsSchema, type SubscriptionStats, subscriptionStatsSchema, type TopicStats } from "@/lib/pulsar/schemas";
import { requestAdmin } from "@/lib/pulsar/transport";
import { parseStandaloneTopicName, topicPath } from "@/lib/pulsar/topic-name";
import { createScratchNamespace, type ScratchNamespace } from "@/tools/pulsar/admin-setup";
import { startBroker, type BrokerHandle, type StartBrokerOptions } from "@/tools/pulsar/broker";

export const TEST_PULSAR_ADMIN_URL_ENV = "BATON_TEST_PULSAR_ADMIN_URL";
export const TEST_PULSAR_WS_URL_ENV = "BATON_TEST_PULSAR_WS_URL";

export interface TestBroker {
  /** http://127.0.0.1:<port>, without /admin/v2 */
  adminUrl: string;
  /** ws://127.0.0.1:<port>, without /ws/v2 */
  wsUrl: string;
}

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The run's broker, from the environment the global setup filled in. */
export function getTestBroker(): TestBroker {
  const adminUrl = process.env[TEST_PULSAR_ADMIN_URL_ENV];
  const wsUrl = process.env[TEST_PULSAR_WS_URL_ENV];
  if (!adminUrl || !wsUrl) {
    throw new Error(
      `${TEST_PULSAR_ADMIN_URL_ENV} and ${TEST_PULSAR_WS_URL_ENV} are not set: run integration tests through the vitest "integration" project, whose global setup starts a broker`,
    );
  }
  for (const url of [adminUrl, wsUrl]) {
    // Tests create and force-delete tenants: never against a broker that is not on this machine.
    if (!LOCAL_HOSTS.has(new URL(url).hostname)) throw new Error(`refusing to run Pulsar tests against non-local ${url}`);
  }
  return { adminUrl, wsUrl };
}

const clusterSchema = z.object({ brokerServiceUrl: z.string().min(1) });

/**
 * The run's broker's binary-protocol URL (pulsar://127.0.0.1:<port>), for clients that speak it
 * (the Java client): read from the cluster the broker registered, so the global setup passes
 * nothing more.
 */
export async function getTestBrokerServiceUrl(): Promise<string> {
  const response = await fetch(`${getTestBroker().adminUrl}/admin/v2/clusters/standalone`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /admin/v2/clusters/standalone answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const { brokerServiceUrl } = clusterSchema.parse(await response.json());
  if (!LOCAL_HOSTS.has(new URL(brokerServiceUrl).hostname)) throw new Error(`refusing to run Pulsar tests against non-local ${brokerServiceUrl}`);
  return brokerServiceUrl;
}

/** For the global setup: a broker on free ports with a fresh temporary data dir (removed by stop()). */
export function startTestBroker(options: Pick<StartBrokerOptions, "version" | "log"> = {}): Promise<BrokerHandle> {
  return startBroker({ ...options, keepData: false });
}

/** A uniquely named tenant + namespace on the test broker; call cleanup() when done. */
export function createTestNamespace(prefix = "test"): Promise<ScratchNamespace> {
  return createScratchNamespace(getTestBroker().adminUrl, prefix);
}

// ---------------------------------------------------------------------------------------------
// Topic stats, read through Baton's own admin client and schemas.

export type { SubscriptionStats, TopicStats } from "@/lib/pulsar/schemas";

/**
 * A partitioned topic's stats with the aggregate over its partitions, which Baton's own schema
 * leaves unread: the tests check what the broker puts there (no active consumer, the backlog).
 */
const partitionedStatsWithAggregateSchema = partitionedTopicStatsSchema.extend({
  subscriptions: z.record(z.string(), subscriptionStatsSchema).default({}),
});
export type PartitionedTopicStats = z.output<typeof partitionedStatsWithAggregateSchema>;

function testTarget() {
  return { adminUrl: getTestBroker().adminUrl, requestTimeoutMs: 10_000 };
}

function topicNameOf(topic: string) {
  const name = parseStandaloneTopicName(topic);
  if (!name) throw new Error(`"${topic}" is not a full topic name`);
  return name;
}

export function getTopicStats(topic: string): Promise<TopicStats> {
  return fetchTopicStats(testTarget(), topicNameOf(topic));
}

export function getPartitionedTopicStats(topic: string): Promise<PartitionedTopicStats> {
  return requestAdmin(
    testTarget(),
    `admin/v2/${topicPath(topicNameOf(topic))}/partitioned-stats?perPartition=true&${STATS_QUERY}`,
    partitionedStatsWithAggregateSchema,
  );
}

/** One subscription of one topic's stats; throws if the broker does not list it. */
export function pickSubscription(stats: TopicStats, subscription: string): SubscriptionStats {
  const found = stats.subscriptions[subscription];
  if (!found) throw new Error(`no subscription ${subscription} in stats (has ${Object.keys(stats.subscriptions).join(", ") || "none"})`);
  return found;
}

/** The stats of partition `index` of a partitioned topic. */
export function pickPartition(stats: PartitionedTopicStats, topic: string, index: number): TopicStats {
  const found = stats.partitions[`${topic}-partition-${index}`];
  if (!found) throw new Error(`no partition ${index} of ${topic} in stats`);
  return found;
}

export { pollUntil, type PollResult } from "@/tests/support/poll-until";
