import { readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { Observation } from "@/lib/poller/contract/partition-state";
import { observeTopicStats } from "@/lib/sources/pulsar/observe-topic";
import { findHashRangeProblems, computeShares } from "@/lib/pulsar/hash-ranges";
import { partitionedTopicStatsSchema, topicStatsSchema } from "@/lib/pulsar/schemas";
import { parseTopicName } from "@/lib/pulsar/topic-name";

// Responses recorded from real Pulsar 4.2.4 and 3.0.7 brokers (npm run fixtures:record).
const VERSIONS = ["4.2.4", "3.0.7"] as const;

function fixture(version: string, name: string): unknown {
  return (JSON.parse(readFileSync(path.join("tests/fixtures/pulsar", version, `${name}.json`), "utf8")) as { body: unknown }).body;
}

const ORDERS = parseTopicName("persistent://baton-fixtures/leaders/orders")!.topic;

function observePartitioned(version: string, name: string, observedAt: string): TopicFetchResult {
  const stats = partitionedTopicStatsSchema.parse(fixture(version, name));
  const observations: Observation[] = Object.entries(stats.partitions).flatMap(([partitionName, partition]) =>
    observeTopicStats(ORDERS, parseTopicName(partitionName)!.partition, partition),
  );
  return {
    topic: { name: ORDERS, fullName: "persistent://baton-fixtures/leaders/orders", isPartitioned: true },
    isOk: true,
    observedAt,
    observations,
    missingPartitions: [],
    partitionCount: stats.metadata.partitions,
  };
}

function holders(result: TopicFetchResult): Record<number, string | null> {
  if (!result.isOk) throw new Error("not ok");
  return Object.fromEntries(result.observations.map((o) => [o.partition, o.holder]));
}

describe.each(VERSIONS)("real Pulsar %s responses", (version) => {
  it("reads the leader of each partition from perPartition output: sorted names, partition mod n", () => {
    const before = observePartitioned(version, "failover-partitioned-before", "2026-11-22T10:00:00.000Z");
    expect(holders(before)).toEqual({ 0: "w1", 1: "w2", 2: "w3", 3: "w1" });
    if (!before.isOk) return;
    expect(before.observations[0]).toMatchObject({ subscription: "orders-workers", subscriptionType: "Failover", isDurable: true });
    expect(before.observations[0]!.consumers.map((c) => c.name)).toEqual(["w1", "w2", "w3"]);
  });

  it("turns the kill of w1 into one client-side change per partition, the consumer set explaining them", () => {
    const before = observePartitioned(version, "failover-partitioned-before", "2026-11-22T10:00:00.000Z");
    const after = observePartitioned(version, "failover-partitioned-after", "2026-11-22T10:00:05.000Z");
    const first = applyObservations({
      previous: new ResourceStateIndex(),
      results: [before],
      pollAt: "2026-11-22T10:00:00.000Z",
      isRecoveringFromOutage: false,
    });
    expect(first.changes).toEqual([]);
    const second = applyObservations({
      previous: ResourceStateIndex.from(first.states),
      results: [after],
      pollAt: "2026-11-22T10:00:05.000Z",
      isRecoveringFromOutage: false,
    });
    const byPartition = Object.fromEntries(second.changes.map((c) => [c.resourceKey.split("|")[2], [c.kind, c.fromHolder, c.toHolder, c.cause]]));
    expect(byPartition).toEqual({
      0: ["HOLDER_CHANGED", "w1", "w2", "CLIENT"],
      1: ["HOLDER_CHANGED", "w2", "w3", "CLIENT"],
      2: ["HOLDER_CHANGED", "w3", "w2", "CLIENT"],
      3: ["HOLDER_CHANGED", "w1", "w3", "CLIENT"],
    });
    expect(second.changes[0]!.details).toMatchObject({ removed: ["w1"] });
  });

  it("reads a non-partitioned Failover topic, an Exclusive holder, and a subscription with no consumers", () => {
    const topic = parseTopicName("persistent://baton-fixtures/leaders/payments")!.topic;
    const [failover] = observeTopicStats(topic, -1, topicStatsSchema.parse(fixture(version, "failover-non-partitioned")));
    expect(failover).toMatchObject({ partition: -1, subscriptionType: "Failover" });
    expect(["w1", "w2", "w3"]).toContain(failover!.holder);

    const [exclusive] = observeTopicStats(topic, -1, topicStatsSchema.parse(fixture(version, "exclusive")));
    expect(exclusive).toMatchObject({ holder: "solo", subscriptionType: "Exclusive" });

    const [idle] = observeTopicStats(topic, -1, topicStatsSchema.parse(fixture(version, "no-consumers")));
    expect(idle).toMatchObject({ holder: null, consumers: [], subscriptionType: null, backlog: 3 });
  });

  it("reads the Key_Shared split, covering the hash space without gaps or overlaps", () => {
    const topic = parseTopicName("persistent://baton-fixtures/leaders/clicks")!.topic;
    const [keyShared] = observeTopicStats(topic, -1, topicStatsSchema.parse(fixture(version, "key-shared")));
    expect(keyShared!.holder).toBeNull();
    const split = keyShared!.hashRanges!;
    expect(split.space).toBe(version.startsWith("4") ? 65_536 : 2_147_483_647);
    expect(split.consumers.map((c) => c.consumer).sort()).toEqual(["k1", "k2", "k3"]);
    expect(findHashRangeProblems(split)).toEqual({ gaps: [], overlaps: [] });
    const total = Object.values(computeShares(split)).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(0.999);
  });
});
