import "server-only";

import type { PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import type { CycleResult, SourceCycles } from "@/lib/poller/source-cycles";
import { waitUntilWoken } from "@/lib/poller/wait-until-woken";
import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import { disabledSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";
import { startConsumerSignal } from "@/lib/sources/pulsar/consumer-signal/run-consumer-signal";
import { discoverTopics, type WatchedTopic } from "@/lib/sources/pulsar/discover-topics";
import { fetchPartitionObservations, fetchTopicObservations, type TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { ResourceState } from "@/lib/poller/contract/partition-state";
import { planRepolls } from "@/lib/sources/pulsar/plan-repolls";
import { ReadTimes } from "@/lib/sources/pulsar/read-times";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import { shareKnownParts } from "@/lib/sources/pulsar/share-known-parts";
import { parseStandaloneTopicName, parseTopicName } from "@/lib/pulsar/topic-name";

/** After an outage, for this long, a resource that lost every connection is put down to the broker. */
const OUTAGE_RECOVERY_WINDOW_MS = 60_000;
/** While no broker exposes consumer-level series, the signal looks again this often only. */
const NOT_EXPOSED_SCRAPE_INTERVAL_MS = 60_000;

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

type SweepRead = {
  startedAtMs: number;
  results: TopicFetchResult[];
  errors: CycleResult["errors"];
  removedTopics: string[];
  isDiscoveryDown: boolean;
  discoveryMs: number | null;
};

/**
 * Pulsar's cycles. The sweep reads every watched topic's stats once, within the request budget,
 * starting from a different topic each time so none is always last, and turns them into
 * subscription-partition states and changes (apply-observations.ts): it is the truth, and its
 * length is the cycle time. Beside it, when the consumer signal (consumer-signal/) sees a
 * topic's consumers join, leave or reconnect, that topic (or the one partition that changed) is
 * re-polled at once, ahead of the sweep's queued reads and inside the same budget, and `run()`
 * hands the re-poll back as a result of its own before the sweep ends. Whichever read of a
 * partition is older than one already applied is dropped, so a slow sweep never undoes a re-poll.
 */
export function openPulsarCycles(cluster: PulsarClusterConfig, saved: ResourceState[], log: (line: string) => void = () => {}): SourceCycles {
  const limiter = createRateLimiter({ requestsPerSecond: cluster.requestsPerSecond, maxConcurrency: cluster.maxConcurrency });
  const states = ResourceStateIndex.from(saved);
  let topics = topicsFromStates(states);
  let topicsByName = new Map(topics.map((t) => [t.fullName, t]));
  let lastDiscoveryAt = Number.NEGATIVE_INFINITY;
  let wasDown = false;
  let outageEndedAt = Number.NEGATIVE_INFINITY;
  let cycle = 0;
  let sweep: Promise<SweepRead> | null = null;
  let sweepDueAt = Number.NEGATIVE_INFINITY;
  const readyRepolls: TopicFetchResult[] = [];
  const readTimes = new ReadTimes();
  let wake: (() => void) | null = null;

  const consumerSignal =
    cluster.consumerSignal === "off"
      ? null
      : startConsumerSignal({
          target: cluster,
          intervalMs: cluster.consumerSignalIntervalMs,
          brokerRefreshMs: cluster.discoveryIntervalMs,
          notExposedIntervalMs: Math.max(cluster.consumerSignalIntervalMs, NOT_EXPOSED_SCRAPE_INTERVAL_MS),
          runAdmin: (task) => limiter.run(task, 1, { isUrgent: true }),
          onChanged: requestRepolls,
          log,
        });

  function requestRepolls(changedPartitions: Set<string>): void {
    const plan = planRepolls(changedPartitions, topicsByName);
    consumerSignal?.countRepolls(plan.length);
    for (const { topic, partition } of plan) {
      const read =
        partition === null
          ? fetchTopicObservations(cluster, topic, limiter, { isUrgent: true })
          : fetchPartitionObservations(cluster, topic, partition, limiter, { isUrgent: true });
      void read.then((result) => {
        readyRepolls.push(shareKnownParts(result, states));
        wake?.();
      });
    }
  }

  async function readSweep(): Promise<SweepRead> {
    // The signal's baseline comes first: a change between the first sweep's read and a later
    // baseline would wait for the next sweep. A scrape is bounded by its timeout.
    if (cycle === 0) await consumerSignal?.firstRound;
    const startedAtMs = Date.now();
    const errors: CycleResult["errors"] = [];
    let removedTopics: string[] = [];
    let isDiscoveryDown = false;
    let discoveryMs: number | null = null;
    if (startedAtMs - lastDiscoveryAt >= cluster.discoveryIntervalMs) {
      const discoveryStart = performance.now();
      try {
        const discovered = await discoverTopics(cluster, limiter);
        const names = new Set(discovered.map((t) => t.fullName));
        removedTopics = topics.filter((t) => !names.has(t.fullName)).map((t) => t.fullName);
        topics = discovered;
        topicsByName = new Map(topics.map((t) => [t.fullName, t]));
        lastDiscoveryAt = startedAtMs;
      } catch (error) {
        isDiscoveryDown = true;
        errors.push({ target: "(discovery)", message: (error as Error).message });
      }
      discoveryMs = performance.now() - discoveryStart;
    }
    const results = await Promise.all(
      rotate(topics, cycle++).map((topic) => fetchTopicObservations(cluster, topic, limiter).then((result) => shareKnownParts(result, states))),
    );
    return { startedAtMs, results, errors, removedTopics, isDiscoveryDown, discoveryMs };
  }

  function applySweep(read: SweepRead): CycleResult {
    const { results, errors } = read;
    const isDown = (read.isDiscoveryDown && topics.length === 0) || (results.length > 0 && results.every((r) => !r.isOk && !r.isNotFound));
    if (wasDown && !isDown) outageEndedAt = read.startedAtMs;
    wasDown = isDown;

    const outcome = applyObservations({
      previous: states,
      results: readTimes.dropRepolledSince(results),
      pollAt: new Date().toISOString(),
      isRecoveringFromOutage: read.startedAtMs - outageEndedAt < OUTAGE_RECOVERY_WINDOW_MS,
      removedTopics: read.removedTopics,
    });
    readTimes.recordSweep(results);
    for (const error of outcome.errors) errors.push({ target: error.topic, message: error.message });
    const retryAfterMs = Math.max(0, ...results.map((r) => (!r.isOk && r.retryAfterSeconds ? r.retryAfterSeconds * 1000 : 0)));
    return {
      states: { shape: "subscription-partition", states: outcome.states },
      isFullSweep: true,
      changes: outcome.changes,
      errors,
      targetCount: topics.length,
      requestCount: limiter.takeRequestCount(),
      retryAfterMs,
      discoveryMs: read.discoveryMs,
      startedAtMs: read.startedAtMs,
    };
  }

  function applyRepolls(results: TopicFetchResult[]): CycleResult {
    // A failed re-poll changes nothing: the sweep marks what it cannot read stale.
    for (const result of results) if (!result.isOk) log(`re-poll of ${result.topic.fullName} failed: ${result.error}`);
    const fresh = readTimes.keepNewerThanApplied(results.filter((r) => r.isOk));
    const outcome = applyObservations({
      previous: states,
      results: fresh,
      pollAt: new Date().toISOString(),
      isRecoveringFromOutage: Date.now() - outageEndedAt < OUTAGE_RECOVERY_WINDOW_MS,
    });
    readTimes.recordRepolls(fresh);
    return {
      states: { shape: "subscription-partition", states: outcome.states },
      isFullSweep: false,
      changes: outcome.changes,
      errors: outcome.errors.map((e) => ({ target: e.topic, message: e.message })),
      targetCount: fresh.length,
      requestCount: 0,
      retryAfterMs: 0,
      discoveryMs: null,
      isRepoll: true,
    };
  }

  return {
    async run(): Promise<CycleResult> {
      if (sweep === null && (Date.now() >= sweepDueAt || readyRepolls.length === 0)) sweep = readSweep();
      const current = sweep;
      if (readyRepolls.length === 0 && current !== null) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          void current.then(() => resolve());
        });
        wake = null;
      }
      if (readyRepolls.length > 0) return applyRepolls(readyRepolls.splice(0));
      const read = await current!;
      sweep = null;
      return applySweep(read);
    },
    commit(result) {
      if (result.states.shape !== "subscription-partition") return;
      for (const state of result.states.states) states.set(state);
    },
    async waitForNext(untilMs, signal) {
      sweepDueAt = untilMs;
      if (sweep !== null || readyRepolls.length > 0 || signal.aborted) return;
      await waitUntilWoken(untilMs, signal, (next) => (wake = next));
    },
    describeSignal: () => consumerSignal?.status() ?? disabledSignalStatus(cluster.consumerSignalIntervalMs),
    close: async () => {
      await consumerSignal?.stop();
    },
  };
}
