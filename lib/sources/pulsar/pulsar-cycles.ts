import "server-only";

import type { PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import type { CycleResult, SourceCycles } from "@/lib/poller/source-cycles";
import { sleep } from "@/lib/sleep";
import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import { discoverTopics, type WatchedTopic } from "@/lib/sources/pulsar/discover-topics";
import { fetchTopicObservations } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { ResourceState } from "@/lib/sources/pulsar/observation";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import { parseStandaloneTopicName, parseTopicName } from "@/lib/pulsar/topic-name";

/** After an outage, for this long, a resource that lost every connection is put down to the broker. */
const OUTAGE_RECOVERY_WINDOW_MS = 60_000;

/** Topics known from saved states: a restarted poller polls them before discovery answers. */
function topicsFromStates(states: ResourceStateIndex): WatchedTopic[] {
  const topics = new Map<string, WatchedTopic>();
  for (const state of states.values()) {
    if (state.goneAt !== null || topics.has(state.topic)) continue;
    const name = state.partition >= 0 ? parseTopicName(state.topic)?.topic : parseStandaloneTopicName(state.topic);
    if (name) topics.set(state.topic, { name, fullName: state.topic, isPartitioned: state.partition >= 0 });
  }
  return [...topics.values()];
}

function rotate<T>(items: T[], offset: number): T[] {
  if (items.length === 0) return items;
  const start = offset % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/**
 * Pulsar's cycles: each reads every watched topic's stats once, within the request budget,
 * starting from a different topic each time so none is always last, and turns them into
 * subscription-partition states and changes (apply-observations.ts).
 */
export function openPulsarCycles(cluster: PulsarClusterConfig, saved: ResourceState[]): SourceCycles {
  const limiter = createRateLimiter({ requestsPerSecond: cluster.requestsPerSecond, maxConcurrency: cluster.maxConcurrency });
  const states = ResourceStateIndex.from(saved);
  let topics = topicsFromStates(states);
  let lastDiscoveryAt = Number.NEGATIVE_INFINITY;
  let wasDown = false;
  let outageEndedAt = Number.NEGATIVE_INFINITY;
  let cycle = 0;

  return {
    async run(): Promise<CycleResult> {
      const cycleStart = Date.now();
      const errors: CycleResult["errors"] = [];
      let removedTopics: string[] = [];
      let isDiscoveryDown = false;
      let discoveryMs: number | null = null;
      if (cycleStart - lastDiscoveryAt >= cluster.discoveryIntervalMs) {
        const discoveryStart = performance.now();
        try {
          const discovered = await discoverTopics(cluster, limiter);
          const names = new Set(discovered.map((t) => t.fullName));
          removedTopics = topics.filter((t) => !names.has(t.fullName)).map((t) => t.fullName);
          topics = discovered;
          lastDiscoveryAt = cycleStart;
        } catch (error) {
          isDiscoveryDown = true;
          errors.push({ target: "(discovery)", message: (error as Error).message });
        }
        discoveryMs = performance.now() - discoveryStart;
      }

      const results = await Promise.all(rotate(topics, cycle++).map((topic) => fetchTopicObservations(cluster, topic, limiter)));
      const isDown = (isDiscoveryDown && topics.length === 0) || (results.length > 0 && results.every((r) => !r.isOk && !r.isNotFound));
      if (wasDown && !isDown) outageEndedAt = cycleStart;
      wasDown = isDown;

      const outcome = applyObservations({
        previous: states,
        results,
        pollAt: new Date().toISOString(),
        isRecoveringFromOutage: cycleStart - outageEndedAt < OUTAGE_RECOVERY_WINDOW_MS,
        removedTopics,
      });
      for (const error of outcome.errors) errors.push({ target: error.topic, message: error.message });
      const retryAfterMs = Math.max(0, ...results.map((r) => (!r.isOk && r.retryAfterSeconds ? r.retryAfterSeconds * 1000 : 0)));
      return {
        states: { shape: "subscription-partition", states: outcome.states },
        changes: outcome.changes,
        errors,
        targetCount: topics.length,
        requestCount: limiter.takeRequestCount(),
        retryAfterMs,
        discoveryMs,
      };
    },
    commit(result) {
      if (result.states.shape !== "subscription-partition") return;
      for (const state of result.states.states) states.set(state);
    },
    waitForNext: (untilMs, signal) => sleep(untilMs - Date.now(), signal),
    close: async () => {},
  };
}
