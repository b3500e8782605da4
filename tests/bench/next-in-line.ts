// Benchmark: the CPU cost of "next in line" for 10,000 partitions, against one poll cycle.
// - The board's read: the predicted next consumer of 10,000 Failover partitions (4 consumers),
//   and of 10,000 non-partitioned Failover topics (the hash ring, one consumer set shared).
// - The poller's worst cycle: every one of 10,000 partitions loses its active consumer at once,
//   so each change is scored against the prediction from the state before it.
// The budget: the default poll interval (BATON_POLL_INTERVAL_MS, 5,000 ms); the figure is the
// share of it the work takes, in CPU time (process.cpuUsage), median of RUNS.
// Run: npm run bench:next-in-line
import { detectChanges } from "@/lib/sources/pulsar/detect-changes";
import type { ConsumerObservation, Observation, ResourceState } from "@/lib/poller/contract/partition-state";
import { predictNextConsumer } from "@/lib/sources/pulsar/predict-next-consumer";

const COUNT = 10_000;
const RUNS = 7;
const POLL_INTERVAL_MS = 5_000;
const NAMES = ["worker-0", "worker-1", "worker-2", "worker-3"];
const TOPIC = "persistent://bench/ns/orders";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** CPU milliseconds (user + system) of one run, median over RUNS; a check value keeps the work from being optimised away. */
function measure(label: string, run: () => number): void {
  const cpu: number[] = [];
  let check = 0;
  run(); // warm-up: the first run compiles
  for (let round = 0; round < RUNS; round++) {
    const before = process.cpuUsage();
    check += run();
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  const ms = median(cpu);
  console.log(
    `${label}: ${ms.toFixed(1)} ms CPU (median of ${RUNS}), ${((ms / POLL_INTERVAL_MS) * 100).toFixed(2)}% of a ${POLL_INTERVAL_MS} ms poll cycle [check ${check}]`,
  );
}

const consumer = (name: string): ConsumerObservation => ({
  name,
  connectedSince: "2026-11-22T09:00:00.000Z",
  msgRateOut: 1,
  availablePermits: 1000,
  unackedMessages: 0,
  lastConsumedAt: null,
  address: null,
  clientVersion: null,
});

const partitions = Array.from({ length: COUNT }, (_, partition) => ({
  topic: TOPIC,
  partition,
  subscriptionType: "Failover",
  holder: NAMES[partition % NAMES.length]!,
  consumers: NAMES,
}));

measure(`board read: next consumer of ${COUNT} partitions`, () => {
  let named = 0;
  for (const resource of partitions) if (predictNextConsumer(resource).holder !== null) named++;
  return named;
});

const topics = Array.from({ length: COUNT }, (_, i) => ({
  topic: `persistent://bench/ns/payments-${i}`,
  partition: -1,
  subscriptionType: "Failover",
  holder: null,
  consumers: NAMES,
}));
measure(`board read: next consumer of ${COUNT} non-partitioned topics (hash ring)`, () => {
  let named = 0;
  for (const resource of topics) if (predictNextConsumer(resource).holder !== null) named++;
  return named;
});

// The poller: every partition's holder leaves between two polls; detection scores each change.
const observe = (partition: number, holder: string, names: string[]): Observation => ({
  resourceKey: `${TOPIC}|orders|${partition}`,
  topic: TOPIC,
  tenant: "bench",
  namespace: "bench/ns",
  partition,
  subscription: "orders",
  subscriptionType: "Failover",
  isDurable: true,
  holder,
  consumers: names.map(consumer),
  hashRanges: null,
  backlog: 0,
  msgRateOut: 1,
});
const T0 = "2026-11-22T10:00:00.000Z";
const T1 = "2026-11-22T10:00:05.000Z";
const cycle = Array.from({ length: COUNT }, (_, partition) => {
  const sorted = [...NAMES].sort();
  const holder = sorted[partition % sorted.length]!;
  const rest = sorted.filter((name) => name !== holder);
  const prev: ResourceState = {
    ...observe(partition, holder, NAMES),
    holderSince: T0,
    lastObservedAt: T0,
    staleSince: null,
    lastError: null,
    lastErrorAt: null,
    goneAt: null,
    lastChangeAt: null,
    recentSamples: [],
  };
  return { prev, obs: observe(partition, rest[partition % rest.length]!, rest) };
});
measure(`poller: ${COUNT} holder changes detected and scored in one cycle`, () => {
  let confirmed = 0;
  for (const { prev, obs } of cycle) {
    for (const change of detectChanges(prev, obs, { pollAt: T1, isBrokerSide: false }).changes) if (change.prediction?.outcome === "CONFIRMED") confirmed++;
  }
  return confirmed;
});
measure(`poller: the same ${COUNT} changes without the scoring (detection alone, for comparison)`, () => {
  let count = 0;
  // The same work minus the prediction: a consumer joins as well, so no change is scored.
  for (const { prev, obs } of cycle)
    count += detectChanges(prev, { ...obs, consumers: [...obs.consumers, consumer("worker-9")] }, { pollAt: T1, isBrokerSide: false }).changes.length;
  return count;
});
