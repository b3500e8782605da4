// Benchmark: change detection for one poll cycle of 100,000 partition-subscriptions
// (10,000 topics x 10 partitions, Failover, 3 consumers each; 1% change leader this cycle).
// Observations come from observeTopicStats on broker-shaped stats and states from a first
// cycle, as in the poller. Target: under 100 ms per cycle. Run: npm run bench:detection
import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import { observeTopicStats } from "@/lib/sources/pulsar/observe-topic";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import { topicStatsSchema } from "@/lib/pulsar/schemas";
import { parseTopicName } from "@/lib/pulsar/topic-name";

const TOPICS = 10_000;
const PARTITIONS = 10;
const NAMES = ["worker-0", "worker-1", "worker-2"];
const RUNS = 15;

/** The stats of one partition as the broker serves them (the fields Baton reads and a few more). */
function partitionStats(holder: string): unknown {
  return {
    msgRateIn: 10,
    subscriptions: {
      workers: {
        type: "Failover",
        activeConsumerName: holder,
        msgBacklog: 3,
        msgRateOut: 10,
        isDurable: true,
        consumers: NAMES.map((name) => ({
          consumerName: name,
          connectedSince: "2026-11-22T01:00:00.123456789Z",
          msgRateOut: 3.3,
          availablePermits: 990,
          unackedMessages: 0,
          lastConsumedTimestamp: 1795308853031,
          address: "/127.0.0.1:40000",
          clientVersion: "Pulsar-Java-v4.2.4",
          metadata: {},
        })),
      },
    },
  };
}

function buildResults(changeEvery: number, observedAt: string): TopicFetchResult[] {
  const results: TopicFetchResult[] = [];
  for (let t = 0; t < TOPICS; t++) {
    const name = parseTopicName(`persistent://bench/ns/topic-${t}`)!.topic;
    const observations = [];
    for (let p = 0; p < PARTITIONS; p++) {
      const isChanged = changeEvery > 0 && (t * PARTITIONS + p) % changeEvery === 0;
      const holder = NAMES[(p + (isChanged ? 1 : 0)) % NAMES.length]!;
      observations.push(...observeTopicStats(name, p, topicStatsSchema.parse(partitionStats(holder))));
    }
    results.push({
      topic: { name, fullName: `persistent://bench/ns/topic-${t}`, isPartitioned: true },
      isOk: true,
      observedAt,
      observations,
      missingPartitions: [],
      partitionCount: PARTITIONS,
    });
  }
  return results;
}

/** How fast this machine is right now: a shared 2-core machine can be several times slower under load. */
function calibrate(): number {
  const started = performance.now();
  const map = new Map<string, number>();
  for (let i = 0; i < 100_000; i++) map.set(`k${i}`, i);
  return performance.now() - started;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const first = applyObservations({
  previous: new ResourceStateIndex(),
  results: buildResults(0, "2026-11-22T09:59:55.000Z"),
  pollAt: "2026-11-22T09:59:55.000Z",
  isRecoveringFromOutage: false,
});
const previous = ResourceStateIndex.from(first.states);
const next = buildResults(100, "2026-11-22T10:00:00.000Z");
const timings: number[] = [];
const cpuTimings: number[] = [];
let changes = 0;
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const outcome = applyObservations({ previous, results: next, pollAt: "2026-11-22T10:00:00.000Z", isRecoveringFromOutage: false });
  const cpu = process.cpuUsage(cpuStarted);
  timings.push(performance.now() - started);
  // CPU time is what the cycle costs; wall time also counts waiting for a core on a busy machine.
  cpuTimings.push((cpu.user + cpu.system) / 1000);
  changes = outcome.changes.length;
}
console.log(`calibration: 100k Map.set in ${calibrate().toFixed(1)} ms (about 10 ms on an idle core)`);
console.log(`change detection: ${previous.size} partition-subscriptions, ${changes} changes per cycle`);
console.log(
  `  wall: median ${median(timings).toFixed(1)} ms per cycle, min ${Math.min(...timings).toFixed(1)} ms, max ${Math.max(...timings).toFixed(1)} ms over ${RUNS} runs (target < 100 ms)`,
);
console.log(`  CPU:  median ${median(cpuTimings).toFixed(1)} ms per cycle, min ${Math.min(...cpuTimings).toFixed(1)} ms`);
