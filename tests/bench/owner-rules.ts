// Benchmark: the cost of recomputing the owner rules for one poll cycle (issue 21's speed goals).
// - 10,000 partitions of Failover subscriptions (4 consumers): active, next in line, moves if one joins.
// - 10,000 non-partitioned Failover topics: the hash-ring pick and next in line, once with one
//   consumer set shared by all topics (the usual case: the same pods everywhere), once with a
//   different set per topic (the worst case: two rings built per topic).
// - 10,000 Key_Shared key owners over a 4.2-shaped split of ~200 ranges.
// Run: node --conditions=react-server --import tsx tests/bench/owner-rules.ts
import { listFailoverTargets, predictAssignment, predictMovesOnJoin, predictNextInLine } from "@/lib/pulsar/failover-rule";
import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { findKeyOwner } from "@/lib/pulsar/key-owner";

const COUNT = 10_000;
const RUNS = 5;
const NAMES = ["worker-0", "worker-1", "worker-2", "worker-3"];
const atDefaultPriority = (names: string[]) => names.map((name) => ({ name, priorityLevel: 0 }));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(label: string, run: (round: number) => void): void {
  const times: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    const start = performance.now();
    run(round);
    times.push(performance.now() - start);
  }
  console.log(`${label}: median ${median(times).toFixed(1)} ms over ${RUNS} runs`);
}

measure(`${COUNT} partitions: active, next in line, moves when a 5th joins`, () => {
  const consumers = atDefaultPriority(NAMES);
  const targets = listFailoverTargets("persistent://bench/ns/orders", COUNT);
  predictAssignment(consumers, targets, { line: "4.2" });
  for (const target of targets) predictNextInLine(consumers, target, { line: "4.2" });
  predictMovesOnJoin(consumers, { name: "worker-4", priorityLevel: 0 }, targets, { line: "4.2" });
});

measure(`${COUNT} non-partitioned topics sharing one consumer set: active and next in line`, (round) => {
  const consumers = atDefaultPriority(NAMES);
  for (let i = 0; i < COUNT; i++) {
    const [target] = listFailoverTargets(`persistent://bench/ns/payments-${round}-${i}`, 0);
    predictAssignment(consumers, [target!], { line: "4.2" });
    predictNextInLine(consumers, target!, { line: "4.2" });
  }
});

measure(`${COUNT} non-partitioned topics, each its own consumer set: active and next in line`, (round) => {
  for (let i = 0; i < COUNT; i++) {
    const consumers = atDefaultPriority(NAMES.map((name) => `${name}-${round}-${i}`));
    const [target] = listFailoverTargets(`persistent://bench/ns/payments-${i}`, 0);
    predictAssignment(consumers, [target!], { line: "4.2" });
    predictNextInLine(consumers, target!, { line: "4.2" });
  }
});

const RANGE_WIDTH = 328;
const split: HashRangeSplit = {
  space: 65_536,
  consumers: ["k-1", "k-2", "k-3"].map((consumer, c) => ({
    consumer,
    ranges: Array.from({ length: 67 }, (_, r): HashRange => {
      const start = (r * 3 + c) * RANGE_WIDTH + 1;
      return [start, Math.min(start + RANGE_WIDTH - 1, 65_535)];
    }).filter(([start]) => start <= 65_535),
  })),
};
measure(`${COUNT} Key_Shared key owners`, (round) => {
  for (let i = 0; i < COUNT; i++) {
    findKeyOwner({ key: `user-${round}-${i}`, line: "4.2", subscriptionType: "Key_Shared", keySharedMode: "AUTO_SPLIT", split });
  }
});
