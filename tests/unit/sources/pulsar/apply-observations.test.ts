import { describe, expect, it } from "vitest";

import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { ResourceState } from "@/lib/poller/contract/partition-state";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { consumer, observation, stateFrom, T0, T1 } from "@/tests/unit/sources/pulsar/builders";

const TOPIC = "persistent://acme/orders/events";
const watched = { name: parseTopicName(TOPIC)!.topic, fullName: TOPIC, isPartitioned: true };

function previousOf(...states: ResourceState[]) {
  return ResourceStateIndex.from(states);
}

function ok(observations: ReturnType<typeof observation>[], missingPartitions: number[] = [], observedAt = T1): TopicFetchResult {
  return { topic: watched, isOk: true, observedAt, observations, missingPartitions, partitionCount: 2 };
}

const p0 = observation({ partition: 0, holder: "w1", consumers: [consumer("w1", "c1"), consumer("w2", "c1")] });
const p1 = observation({ partition: 1, holder: "w2", consumers: [consumer("w1", "c1"), consumer("w2", "c1")] });

describe("applyObservations", () => {
  it("a failed poll makes every known resource of the topic stale, keeps its leader, records no change", () => {
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0), stateFrom(p1, T0)),
      results: [{ topic: watched, isOk: false, observedAt: T1, error: "HTTP 412: Broker is shutting down", isNotFound: false }],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    expect(outcome.changes).toEqual([]);
    expect(outcome.states.map((s) => [s.holder, s.staleSince, s.lastError])).toEqual([
      ["w1", T1, "HTTP 412: Broker is shutting down"],
      ["w2", T1, "HTTP 412: Broker is shutting down"],
    ]);
    expect(outcome.errors).toEqual([{ topic: TOPIC, message: "HTTP 412: Broker is shutting down" }]);
  });

  it("a topic that answers 404 is gone, not leaderless", () => {
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0)),
      results: [{ topic: watched, isOk: false, observedAt: T1, error: "HTTP 404: Partitioned topic not found", isNotFound: true }],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    expect(outcome.states[0]).toMatchObject({ holder: "w1", goneAt: T1, staleSince: null });
    expect(outcome.changes).toEqual([]);
  });

  it("a partition the broker left out of partitioned-stats is stale; a deleted subscription is gone", () => {
    const other = observation({ partition: 0, subscription: "audit", holder: "w9", consumers: [consumer("w9")] });
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0), stateFrom(p1, T0), stateFrom(other, T0)),
      results: [ok([p0], [1])],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    const byKey = new Map(outcome.states.map((s) => [s.resourceKey, s]));
    expect(byKey.get(p1.resourceKey)).toMatchObject({ staleSince: T1, holder: "w2", goneAt: null });
    expect(byKey.get(other.resourceKey)).toMatchObject({ goneAt: T1 });
    expect(outcome.changes).toEqual([]);
  });

  it("a consumer leaving reshuffles other partitions: each is a client-side change explained by the consumer set", () => {
    const after0 = observation({ partition: 0, holder: "w2", consumers: [consumer("w2", "c1")] });
    const after1 = observation({ partition: 1, holder: "w2", consumers: [consumer("w2", "c1")] });
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0), stateFrom(p1, T0)),
      results: [ok([after0, after1])],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    expect(outcome.changes.map((c) => [c.resourceKey.split("|")[2], c.kind, c.cause])).toEqual([
      ["0", "HOLDER_CHANGED", "CLIENT"],
      ["1", "CONSUMERS_CHANGED", "CLIENT"],
    ]);
  });

  it("every consumer of the topic reconnecting at once (an unload) is put down to the broker", () => {
    const after0 = observation({ partition: 0, holder: "w2", consumers: [consumer("w1", "c2"), consumer("w2", "c2")] });
    const after1 = observation({ partition: 1, holder: "w2", consumers: [consumer("w1", "c2"), consumer("w2", "c2")] });
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0), stateFrom(p1, T0)),
      results: [ok([after0, after1])],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    expect(outcome.changes.length).toBeGreaterThan(0);
    expect(new Set(outcome.changes.map((c) => c.cause))).toEqual(new Set(["BROKER"]));
  });

  it("bounds each change by the time its own answer arrived, not by the cycle's end", () => {
    const otherTopic = "persistent://acme/orders/audit";
    const otherWatched = { name: parseTopicName(otherTopic)!.topic, fullName: otherTopic, isPartitioned: true };
    const q0 = observation({ topic: otherTopic, partition: 0, holder: "w1", consumers: [consumer("w1", "c1"), consumer("w2", "c1")] });
    const quickAnswer = "2026-11-22T10:00:01.000Z";
    const slowAnswer = "2026-11-22T10:00:04.000Z";
    const outcome = applyObservations({
      previous: previousOf(stateFrom(p0, T0), stateFrom(q0, T0)),
      results: [
        ok([observation({ partition: 0, holder: "w2", consumers: [consumer("w2", "c1")] })], [], quickAnswer),
        {
          topic: otherWatched,
          isOk: true,
          observedAt: slowAnswer,
          observations: [{ ...q0, holder: "w2", consumers: [consumer("w2", "c1")] }],
          missingPartitions: [],
          partitionCount: 1,
        },
      ],
      pollAt: T1,
      isRecoveringFromOutage: false,
    });
    expect(outcome.changes.filter((c) => c.kind === "HOLDER_CHANGED").map((c) => [c.resourceKey.split("|")[0], c.oldSeenAt, c.newSeenAt])).toEqual([
      [TOPIC, T0, quickAnswer],
      [otherTopic, T0, slowAnswer],
    ]);
    expect(outcome.states.map((s) => s.lastObservedAt).sort()).toEqual([quickAnswer, slowAnswer]);
  });

  it("after a broker restart, the leaderless subscriptions are put down to the broker", () => {
    const empty0 = observation({ partition: 0, holder: null, consumers: [] });
    const stale = { ...stateFrom(p0, T0), staleSince: T0 };
    const outcome = applyObservations({ previous: previousOf(stale), results: [ok([empty0])], pollAt: T1, isRecoveringFromOutage: true });
    expect(outcome.changes).toEqual([expect.objectContaining({ kind: "HOLDER_LOST", cause: "BROKER", isDuringGap: true })]);
  });
});
