import "server-only";

import type { ClusterConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { applyObservations } from "@/lib/poller/apply-observations";
import { discoverTopics, type WatchedTopic } from "@/lib/poller/discover-topics";
import { fetchTopicObservations } from "@/lib/poller/fetch-topic-observations";
import type { ResourceStateIndex } from "@/lib/poller/resource-state-index";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import { loadResourceStates, saveCycle } from "@/lib/poller/resource-store";
import { parseStandaloneTopicName, parseTopicName } from "@/lib/pulsar/topic-name";
import { sleep } from "@/lib/sleep";

/** After an outage, for this long, a resource that lost every connection is put down to the broker. */
const OUTAGE_RECOVERY_WINDOW_MS = 60_000;

export type ClusterPollerOptions = {
  db: Db;
  cluster: ClusterConfig;
  clusterId: number;
  epoch: bigint;
  pollerId: string;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Called after each saved cycle (tests and benchmarks observe the poller through it). */
  onCycle?: (cycle: { changeCount: number; errorCount: number; topicCount: number; cycleMs: number | null }) => void;
};


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
 * Polls one cluster until `signal` aborts (or the lease is lost: saveCycle throws
 * PollerDeposedError). Each cycle polls every watched topic once, within the request budget,
 * starting from a different topic each time so none is always last; a cycle that does not fit
 * the interval is followed at once by the next, and its real length is recorded.
 */
export async function runClusterPoller(options: ClusterPollerOptions): Promise<void> {
  const { db, cluster, clusterId, epoch, pollerId, signal, log } = options;
  const limiter = createRateLimiter({ requestsPerSecond: cluster.requestsPerSecond, maxConcurrency: cluster.maxConcurrency });
  const states = await loadResourceStates(db, clusterId);
  let topics = topicsFromStates(states);
  let lastDiscoveryAt = Number.NEGATIVE_INFINITY;
  let wasDown = false;
  let outageEndedAt = Number.NEGATIVE_INFINITY;
  let previousCycleStart: number | null = null;
  let cycle = 0;

  while (!signal.aborted) {
    const cycleStart = Date.now();
    const errors: { topic: string; message: string }[] = [];
    let removedTopics: string[] = [];
    let isDiscoveryDown = false;
    if (cycleStart - lastDiscoveryAt >= cluster.discoveryIntervalMs) {
      try {
        const discovered = await discoverTopics(cluster, limiter);
        const names = new Set(discovered.map((t) => t.fullName));
        removedTopics = topics.filter((t) => !names.has(t.fullName)).map((t) => t.fullName);
        topics = discovered;
        lastDiscoveryAt = cycleStart;
      } catch (error) {
        isDiscoveryDown = true;
        errors.push({ topic: "(discovery)", message: (error as Error).message });
      }
    }

    const results = await Promise.all(rotate(topics, cycle).map((topic) => fetchTopicObservations(cluster, topic, limiter)));
    const isDown = (isDiscoveryDown && topics.length === 0) || (results.length > 0 && results.every((r) => !r.isOk && !r.isNotFound));
    if (wasDown && !isDown) outageEndedAt = cycleStart;
    wasDown = isDown;

    const pollAt = new Date().toISOString();
    const outcome = applyObservations({
      previous: states,
      results,
      pollAt,
      isRecoveringFromOutage: cycleStart - outageEndedAt < OUTAGE_RECOVERY_WINDOW_MS,
      removedTopics,
    });
    const cycleMs = previousCycleStart === null ? null : cycleStart - previousCycleStart;
    previousCycleStart = cycleStart;
    const changeCount = await saveCycle(db, {
      clusterId,
      epoch,
      states: outcome.states,
      changes: outcome.changes,
      pollRun: {
        startedAt: new Date(cycleStart).toISOString(),
        finishedAt: new Date().toISOString(),
        cycleMs,
        topicCount: topics.length,
        requestCount: limiter.takeRequestCount(),
        errors: [...errors, ...outcome.errors],
        pollerId,
      },
    });
    for (const state of outcome.states) states.set(state);
    for (const change of outcome.changes) {
      log(`${cluster.name}: ${change.kind} ${change.resourceKey} ${change.fromHolder ?? "-"} -> ${change.toHolder ?? "-"} (${change.cause}${change.isDuringGap ? ", during a gap" : ""})`);
    }
    options.onCycle?.({ changeCount, errorCount: errors.length + outcome.errors.length, topicCount: topics.length, cycleMs });
    cycle++;

    const retryAfterMs = Math.max(0, ...results.map((r) => (!r.isOk && r.retryAfterSeconds ? r.retryAfterSeconds * 1000 : 0)));
    const nextStart = Math.max(cycleStart + cluster.pollIntervalMs, Date.now() + retryAfterMs);
    await sleep(nextStart - Date.now(), signal);
  }
}
