import { describe, expect, it } from "vitest";

import {
  DEFAULT_PRIORITY_LEVEL,
  type FailoverConsumer,
  failoverConsumersFromStats,
  listFailoverTargets,
  pickActiveConsumer,
  predictAssignment,
  predictMovesOnJoin,
  predictMovesOnLeave,
  predictNextInLine,
} from "@/lib/pulsar/failover-rule";
import { partitionedTopicStatsSchema, topicStatsSchema } from "@/lib/pulsar/schemas";
import { FIXTURE_VERSIONS, readFixtureBody } from "@/tests/unit/pulsar/read-fixture";

const at = (...names: string[]): FailoverConsumer[] => names.map((name) => ({ name, priorityLevel: DEFAULT_PRIORITY_LEVEL }));
const LINE_OF = { "4.2.4": "4.2", "3.0.7": "3.0" } as const;
const ORDERS = "persistent://baton-fixtures/leaders/orders";
const PAYMENTS = "persistent://baton-fixtures/leaders/payments";

function activesOf(result: ReturnType<typeof predictAssignment>): (string | null)[] {
  if (!result.ok) throw new Error(result.detail);
  return result.value.map((entry) => entry.active);
}

describe("Failover on a partitioned topic: sorted names, partitionIndex % n", () => {
  const targets = listFailoverTargets("persistent://t/ns/orders", 4);

  it.each([
    [
      ["f-1", "f-2", "f-3"],
      ["f-1", "f-2", "f-3", "f-1"],
    ],
    [
      ["f-3", "f-1", "f-2"],
      ["f-1", "f-2", "f-3", "f-1"],
    ],
    [
      ["f-2", "f-3"],
      ["f-2", "f-3", "f-2", "f-3"],
    ],
    [
      ["b", "a"],
      ["a", "b", "a", "b"],
    ],
    [["only"], ["only", "only", "only", "only"]],
    [
      ["W", "w", "_"],
      ["W", "_", "w", "W"],
    ],
  ])("%j → %j", (names, expected) => {
    for (const line of ["4.2", "3.0"] as const) expect(activesOf(predictAssignment(at(...names), targets, { line }))).toEqual(expected);
  });

  it("lets only the best priority level take part", () => {
    const consumers: FailoverConsumer[] = [
      { name: "a", priorityLevel: 1 },
      { name: "b", priorityLevel: 0 },
      { name: "c", priorityLevel: 0 },
    ];
    expect(activesOf(predictAssignment(consumers, targets, { line: "4.2" }))).toEqual(["b", "c", "b", "c"]);
  });

  it("names the successor per partition and what moves when the leader of partition 0 leaves (issue 21's 4.2.4 observation)", () => {
    const consumers = at("f-1", "f-2", "f-3");
    expect(targets.map((t) => (predictNextInLine(consumers, t, { line: "4.2" }) as { value: unknown }).value)).toEqual(["f-2", "f-3", "f-1", "f-3"]);
    expect(predictMovesOnLeave(consumers, "f-1", targets, { line: "4.2" })).toEqual({
      ok: true,
      value: [
        { topic: "persistent://t/ns/orders-partition-0", partitionIndex: 0, from: "f-1", to: "f-2" },
        { topic: "persistent://t/ns/orders-partition-1", partitionIndex: 1, from: "f-2", to: "f-3" },
        { topic: "persistent://t/ns/orders-partition-2", partitionIndex: 2, from: "f-3", to: "f-2" },
        { topic: "persistent://t/ns/orders-partition-3", partitionIndex: 3, from: "f-1", to: "f-3" },
      ],
    });
  });

  it("answers the scale-from-3-to-4 question: which partitions change hands", () => {
    const moves = predictMovesOnJoin(at("f-1", "f-2", "f-3"), { name: "f-4", priorityLevel: 0 }, targets, { line: "3.0" });
    expect(moves.ok && moves.value.map((m) => [m.partitionIndex, m.from, m.to])).toEqual([[3, "f-1", "f-4"]]);
    const first = predictMovesOnJoin(at("f-1", "f-2", "f-3"), { name: "f-0", priorityLevel: 0 }, targets, { line: "3.0" });
    expect(first.ok && first.value.map((m) => [m.partitionIndex, m.from, m.to])).toEqual([
      [0, "f-1", "f-0"],
      [1, "f-2", "f-1"],
      [2, "f-3", "f-2"],
      [3, "f-1", "f-3"],
    ]);
  });

  it("has nobody next in line for the last consumer, and nobody active without consumers", () => {
    expect(predictNextInLine(at("solo"), targets[0]!, { line: "4.2" })).toEqual({ ok: true, value: null });
    expect(pickActiveConsumer([], targets[0]!, { line: "4.2" })).toEqual({ ok: true, value: null });
  });

  it("refuses to predict when its current pick is not the broker's", () => {
    const result = predictNextInLine(at("f-1", "f-2"), targets[0]!, { line: "4.2" }, "f-2");
    expect(result).toMatchObject({ ok: false, reason: "rule-disagrees-with-broker" });
  });

  it("with PIP-392's setting on 4.2, partitions use the ring; 3.0 has no such setting", () => {
    const consumers = at("w1", "w2", "w3");
    const ring = activesOf(predictAssignment(consumers, targets, { line: "4.2", isConsistentHashingForPartitions: true }));
    const perPartition = targets.map((t) => activesOf(predictAssignment(consumers, [{ topic: t.topic, partitionIndex: -1 }], { line: "4.2" }))[0]);
    expect(ring).toEqual(perPartition);
    expect(activesOf(predictAssignment(consumers, targets, { line: "3.0", isConsistentHashingForPartitions: true }))).toEqual(["w1", "w2", "w3", "w1"]);
  });
});

describe("Failover on a non-partitioned topic: the consistent-hash pick", () => {
  const payments = listFailoverTargets(PAYMENTS, 0);

  it("lists the topic itself as the one target", () => {
    expect(payments).toEqual([{ topic: PAYMENTS, partitionIndex: -1 }]);
  });

  it("does not depend on the order consumers joined", () => {
    const a = activesOf(predictAssignment(at("w1", "w2", "w3"), payments, { line: "4.2" }));
    const b = activesOf(predictAssignment(at("w3", "w1", "w2"), payments, { line: "4.2" }));
    expect(a).toEqual(b);
  });

  it("cannot be computed for non-ASCII names: the broker hashes them with its JVM's default charset", () => {
    expect(pickActiveConsumer(at("wörker", "w2"), payments[0]!, { line: "4.2" })).toMatchObject({ ok: false, reason: "consumer-name-charset" });
    // Sorting needs no charset: partitions still work.
    expect(pickActiveConsumer(at("wörker", "w2"), { topic: `${PAYMENTS}-partition-0`, partitionIndex: 0 }, { line: "4.2" })).toEqual({ ok: true, value: "w2" });
  });
});

describe("inputs the stats lack", () => {
  it("cannot be computed without priority levels or names", () => {
    const target = { topic: "persistent://t/ns/x-partition-0", partitionIndex: 0 };
    expect(pickActiveConsumer(failoverConsumersFromStats([{ consumerName: "a" }]), target, { line: "4.2" })).toMatchObject({
      ok: false,
      reason: "priority-level-unknown",
    });
    expect(
      pickActiveConsumer(
        failoverConsumersFromStats([{}], () => 0),
        target,
        { line: "4.2" },
      ),
    ).toMatchObject({
      ok: false,
      reason: "consumer-name-unknown",
    });
    expect(predictMovesOnLeave(at("a"), "b", [target], { line: "4.2" })).toMatchObject({ ok: false, reason: "unknown-consumer" });
  });
});

describe.each(FIXTURE_VERSIONS)("the recorded %s stats agree with the rule", (version) => {
  const line = LINE_OF[version];
  const declaredDefault = () => DEFAULT_PRIORITY_LEVEL;

  it("partitioned: every partition's activeConsumerName, before and after w1 was killed", () => {
    for (const scenario of ["failover-partitioned-before", "failover-partitioned-after"]) {
      const stats = partitionedTopicStatsSchema.parse(readFixtureBody(version, scenario));
      const targets = listFailoverTargets(ORDERS, stats.metadata.partitions);
      for (const target of targets) {
        const subscription = stats.partitions[target.topic]!.subscriptions["orders-workers"]!;
        const predicted = pickActiveConsumer(failoverConsumersFromStats(subscription.consumers, declaredDefault), target, { line });
        expect(predicted, `${scenario} ${target.topic}`).toEqual({ ok: true, value: subscription.activeConsumerName });
      }
    }
  });

  it("partitioned: the moves predicted before w1 left are the ones recorded after", () => {
    const before = partitionedTopicStatsSchema.parse(readFixtureBody(version, "failover-partitioned-before"));
    const after = partitionedTopicStatsSchema.parse(readFixtureBody(version, "failover-partitioned-after"));
    const targets = listFailoverTargets(ORDERS, 4);
    const consumers = failoverConsumersFromStats(before.partitions[targets[0]!.topic]!.subscriptions["orders-workers"]!.consumers, declaredDefault);
    const moves = predictMovesOnLeave(consumers, "w1", targets, { line });
    if (!moves.ok) throw new Error(moves.detail);
    for (const move of moves.value) {
      expect(after.partitions[move.topic]!.subscriptions["orders-workers"]!.activeConsumerName).toBe(move.to);
    }
  });

  it("non-partitioned: the ring picks the recorded active consumer", () => {
    const stats = topicStatsSchema.parse(readFixtureBody(version, "failover-non-partitioned"));
    const subscription = stats.subscriptions["payments-workers"]!;
    expect(subscription.consumers).toHaveLength(3);
    const predicted = pickActiveConsumer(failoverConsumersFromStats(subscription.consumers, declaredDefault), listFailoverTargets(PAYMENTS, 0)[0]!, { line });
    expect(predicted).toEqual({ ok: true, value: subscription.activeConsumerName });
  });
});
