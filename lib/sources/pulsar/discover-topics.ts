import "server-only";

import type { PulsarClusterConfig, ScopeConfig } from "@/lib/sources/pulsar/pulsar-config";
import type { RateLimiter } from "@/lib/poller/rate-limiter";
import { listNamespaces, listPartitionedTopics, listTenants, listTopics } from "@/lib/pulsar/admin-client";
import { formatTopicName, isSystemTopic, parseStandaloneTopicName, parseTopicName, type TopicName } from "@/lib/pulsar/topic-name";
import { compareText } from "@/lib/compare-text";

export type WatchedTopic = {
  name: TopicName;
  /** The full base name, e.g. persistent://t/ns/orders. */
  fullName: string;
  isPartitioned: boolean;
};

/** Pulsar's own tenant: its topics are the system's, not the user's. */
const SYSTEM_TENANT = "pulsar";

function globToRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
}

async function resolveNamespaces(target: PulsarClusterConfig, scope: ScopeConfig, limiter: RateLimiter): Promise<string[]> {
  const namespaces = new Set<string>(scope.namespaces);
  const tenants = new Set<string>(scope.tenants);
  if (scope.everything) {
    for (const tenant of await limiter.run(() => listTenants(target))) if (tenant !== SYSTEM_TENANT) tenants.add(tenant);
  }
  for (const tenant of tenants) for (const ns of await limiter.run(() => listNamespaces(target, tenant))) namespaces.add(ns);
  for (const pattern of scope.topics) {
    const parsed = parseTopicName(pattern.replaceAll("*", "x"));
    if (parsed) namespaces.add(`${parsed.topic.tenant}/${parsed.topic.namespace}`);
  }
  return [...namespaces].sort();
}

/** Base topics of one namespace: a partitioned topic once (its partitions folded in). */
async function discoverNamespace(target: PulsarClusterConfig, namespace: string, limiter: RateLimiter): Promise<WatchedTopic[]> {
  const [all, partitionedPersistent, partitionedNonPersistent] = await Promise.all([
    limiter.run(() => listTopics(target, namespace)),
    limiter.run(() => listPartitionedTopics(target, namespace, "persistent")),
    limiter.run(() => listPartitionedTopics(target, namespace, "non-persistent")),
  ]);
  const partitioned = new Set([...partitionedPersistent, ...partitionedNonPersistent]);
  const topics = new Map<string, WatchedTopic>();
  for (const full of [...partitioned, ...all]) {
    const parsed = parseTopicName(full);
    if (!parsed || isSystemTopic(parsed.topic)) continue;
    const base = formatTopicName(parsed.topic);
    if (partitioned.has(base)) {
      if (!topics.has(base)) topics.set(base, { name: parsed.topic, fullName: base, isPartitioned: true });
      continue;
    }
    // Not a partition of a partitioned topic (even if its name ends in -partition-N).
    const standalone = parseStandaloneTopicName(full);
    if (standalone && !topics.has(full)) topics.set(full, { name: standalone, fullName: full, isPartitioned: false });
  }
  return [...topics.values()];
}

/**
 * Every topic in the cluster's scope: configured tenants, namespaces and topic patterns, or
 * everything. System topics are skipped.
 */
export async function discoverTopics(target: PulsarClusterConfig, limiter: RateLimiter): Promise<WatchedTopic[]> {
  const namespaces = await resolveNamespaces(target, target.scope, limiter);
  const found = (await Promise.all(namespaces.map((ns) => discoverNamespace(target, ns, limiter)))).flat();
  const patterns = target.scope.topics.map(globToRegExp);
  const wholeNamespaces = new Set(target.scope.namespaces);
  const wholeTenants = new Set(target.scope.tenants);
  return found
    .filter(
      (topic) =>
        target.scope.everything ||
        wholeTenants.has(topic.name.tenant) ||
        wholeNamespaces.has(`${topic.name.tenant}/${topic.name.namespace}`) ||
        patterns.some((p) => p.test(topic.fullName)),
    )
    .sort((a, b) => compareText(a.fullName, b.fullName));
}
