import { describe, expect, it } from "vitest";

import { detectHoldChanges } from "@/lib/poller/detect-hold-changes";
import { scorePrediction } from "@/lib/poller/next-holder";
import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import { type LockResourceKind, lockDescriptionOf } from "@/lib/sources/kind-descriptions";
import { detectChanges } from "@/lib/sources/pulsar/detect-changes";
import { predictNextConsumer } from "@/lib/sources/pulsar/predict-next-consumer";
import { consumer, observation, stateFrom, T0, T1 } from "@/tests/unit/sources/pulsar/builders";

const TOPIC = "persistent://acme/orders/events";
const ctx = { pollAt: T1, isBrokerSide: false };

describe("predictNextConsumer", () => {
  it("reruns the Failover rule without the active consumer, per partition", () => {
    // Sorted f-1, f-2, f-3: partition p is held by sorted[p % 3]; without it, by the rest's [p % 2].
    const consumers = ["f-2", "f-3", "f-1"];
    const next = [0, 1, 2, 3].map((partition) =>
      predictNextConsumer({ topic: TOPIC, partition, subscriptionType: "Failover", holder: ["f-1", "f-2", "f-3", "f-1"][partition]!, consumers }),
    );
    expect(next.map((n) => n.holder)).toEqual(["f-2", "f-3", "f-1", "f-3"]);
    expect(next.every((n) => n.reason === null)).toBe(true);
  });

  it("says nobody is next when the holder is the only consumer", () => {
    expect(predictNextConsumer({ topic: TOPIC, partition: 0, subscriptionType: "Failover", holder: "f-1", consumers: ["f-1"] })).toEqual({
      holder: null,
      reason: null,
      detail: null,
    });
  });

  it("uses the hash ring on a non-partitioned topic", () => {
    const next = predictNextConsumer({ topic: TOPIC, partition: -1, subscriptionType: "Failover", holder: null, consumers: ["a", "b", "c"] });
    expect(next.reason).toBeNull();
    expect(["a", "b", "c"]).toContain(next.holder);
  });

  it("refuses when the broker's active consumer is not the rule's pick (its inputs are not Baton's)", () => {
    const next = predictNextConsumer({ topic: TOPIC, partition: 0, subscriptionType: "Failover", holder: "f-2", consumers: ["f-1", "f-2"] });
    expect(next).toMatchObject({ holder: null, reason: "rule-disagrees-with-broker" });
  });

  it.each([
    ["Shared", /no active consumer/],
    ["Exclusive", /one consumer/],
    ["Key_Shared", /hash range/],
  ])("cannot compute a next consumer for %s, and says why", (subscriptionType, detail) => {
    const next = predictNextConsumer({
      topic: TOPIC,
      partition: 0,
      subscriptionType,
      holder: subscriptionType === "Exclusive" ? "a" : null,
      consumers: ["a", "b"],
    });
    expect(next).toMatchObject({ holder: null, reason: "no-owner-rule" });
    expect(next.detail).toMatch(detail);
  });

  it("cannot sort a consumer the stats leave nameless", () => {
    const next = predictNextConsumer({ topic: TOPIC, partition: 0, subscriptionType: "Failover", holder: "a", consumers: ["a", "(unnamed 2)"] });
    expect(next.reason).toBe("consumer-name-unknown");
  });
});

// Each lock kind's next-in-line rule is its description's (lib/sources/<kind>/<kind>-description.ts).
const predictNextWaiter = ({ resourceKind, waiters, source }: { resourceKind: LockResourceKind; waiters: string[]; source: Record<string, unknown> }) =>
  lockDescriptionOf(resourceKind).predictNextHolder(waiters, source);
const ruleOf = (resourceKind: LockResourceKind) => lockDescriptionOf(resourceKind).predictNextHolder;

describe("predictNextHolder of each lock kind", () => {
  it("answers the queue's head for ZooKeeper, etcd and a Redisson fair lock", () => {
    expect(predictNextWaiter({ resourceKind: "ZOOKEEPER_LOCK", waiters: ["b", "c"], source: {} }).holder).toBe("b");
    expect(predictNextWaiter({ resourceKind: "ETCD_LOCK", waiters: [], source: {} })).toEqual({ holder: null, reason: null, detail: null });
    expect(predictNextWaiter({ resourceKind: "REDIS_LOCK", waiters: ["t:2"], source: { layout: "redisson" } }).holder).toBe("t:2");
  });

  it("says there is no queue for SET NX, Redlock, a DynamoDB lock and a Lease", () => {
    for (const source of [{ layout: "token" }, { layout: "token", redlock: true }, { layout: "redisson" }]) {
      expect(predictNextWaiter({ resourceKind: "REDIS_LOCK", waiters: [], source })).toMatchObject({ holder: null, reason: "no-queue" });
    }
    expect(predictNextWaiter({ resourceKind: "KUBERNETES_LEASE", waiters: [], source: {} }).reason).toBe("no-queue");
    expect(predictNextWaiter({ resourceKind: "DYNAMODB_LOCK", waiters: [], source: { recordVersionNumber: "v1" } })).toMatchObject({
      holder: null,
      reason: "no-queue",
    });
  });
});

describe("scorePrediction", () => {
  it("confirms, marks wrong, or says not predicted", () => {
    expect(scorePrediction("HOLDER_CHANGED", { holder: "b", reason: null, detail: null }, "b")).toEqual({ predictedHolder: "b", outcome: "CONFIRMED" });
    expect(scorePrediction("HOLDER_CHANGED", { holder: "b", reason: null, detail: null }, "c")).toEqual({ predictedHolder: "b", outcome: "WRONG" });
    expect(scorePrediction("HOLDER_LOST", { holder: null, reason: null, detail: null }, null)).toEqual({ predictedHolder: null, outcome: "CONFIRMED" });
    expect(scorePrediction("HOLDER_CHANGED", { holder: null, reason: "no-queue", detail: "x" }, "c")).toEqual({
      predictedHolder: null,
      outcome: "NOT_PREDICTED",
    });
    expect(scorePrediction("HOLDER_APPEARED", { holder: "b", reason: null, detail: null }, "b")).toBeNull();
  });
});

describe("detectChanges scores a holder change against the prediction made before it", () => {
  it("confirms the rule's next consumer when the holder leaves", () => {
    const before = observation({ holder: "f-1", consumers: [consumer("f-1"), consumer("f-2"), consumer("f-3")], partition: 0 });
    const after = observation({ holder: "f-2", consumers: [consumer("f-2"), consumer("f-3")], partition: 0 });
    const { changes } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes).toEqual([expect.objectContaining({ kind: "HOLDER_CHANGED", prediction: { predictedHolder: "f-2", outcome: "CONFIRMED" } })]);
  });

  it("marks it wrong when the broker chose someone else", () => {
    const before = observation({ holder: "f-1", consumers: [consumer("f-1"), consumer("f-2"), consumer("f-3")], partition: 0 });
    const after = observation({ holder: "f-3", consumers: [consumer("f-2"), consumer("f-3")], partition: 0 });
    expect(detectChanges(stateFrom(before, T0), after, ctx).changes[0]!.prediction).toEqual({ predictedHolder: "f-2", outcome: "WRONG" });
  });

  it("does not score a change the prediction does not cover: a consumer joining reshuffles a partition whose holder stayed", () => {
    const before = observation({ holder: "f-1", consumers: [consumer("f-1"), consumer("f-2"), consumer("f-3")], partition: 3 });
    const after = observation({ holder: "f-4", consumers: [consumer("f-1"), consumer("f-2"), consumer("f-3"), consumer("f-4")], partition: 3 });
    const { changes } = detectChanges(stateFrom(before, T0), after, ctx);
    expect(changes[0]!.kind).toBe("HOLDER_CHANGED");
    expect(changes[0]!.prediction).toBeUndefined();
  });

  it("records not predicted for an Exclusive subscription whose consumer is replaced", () => {
    const before = observation({ subscriptionType: "Exclusive", holder: "a", consumers: [consumer("a")] });
    const after = observation({ subscriptionType: "Exclusive", holder: null, consumers: [] });
    expect(detectChanges(stateFrom(before, T0), after, ctx).changes[0]!.prediction).toEqual({ predictedHolder: null, outcome: "NOT_PREDICTED" });
  });
});

describe("detectHoldChanges scores a lock's holder change against its queue's head", () => {
  const seen = (offsetMs: number, holder: string | null, waiters: string[]): HoldObservation => ({
    resourceKey: "/locks/job",
    pattern: "/locks",
    holder,
    holderToken: holder === null ? null : `tok-${holder}`,
    expiresAt: null,
    ttlMs: null,
    waiters,
    observedAt: new Date(Date.parse(T0) + offsetMs).toISOString(),
    isSplit: false,
    details: {},
  });

  it("confirms the head of the queue, and marks another winner wrong", () => {
    const first = detectHoldChanges(undefined, seen(0, "a", ["b", "c"]), null, ruleOf("ZOOKEEPER_LOCK")).next;
    expect(detectHoldChanges(first, seen(1_000, "b", ["c"]), null, ruleOf("ZOOKEEPER_LOCK")).changes[0]!.prediction).toEqual({
      predictedHolder: "b",
      outcome: "CONFIRMED",
    });
    expect(detectHoldChanges(first, seen(1_000, "c", ["b"]), null, ruleOf("ZOOKEEPER_LOCK")).changes[0]!.prediction).toEqual({
      predictedHolder: "b",
      outcome: "WRONG",
    });
  });

  it("confirms a release with nobody queued, and leaves a newcomer's take-over of an empty queue unscored", () => {
    const alone = detectHoldChanges(undefined, seen(0, "a", []), null, ruleOf("ETCD_LOCK")).next;
    expect(detectHoldChanges(alone, seen(1_000, null, []), null, ruleOf("ETCD_LOCK")).changes[0]!.prediction).toEqual({
      predictedHolder: null,
      outcome: "CONFIRMED",
    });
    expect(detectHoldChanges(alone, seen(1_000, "z", []), null, ruleOf("ETCD_LOCK")).changes[0]!.prediction).toBeNull();
  });

  it("leaves a release with a queue unscored (the head is about to take it), and a SET NX takeover not predicted", () => {
    const queued = detectHoldChanges(undefined, seen(0, "a", ["b"]), null, ruleOf("REDIS_LOCK")).next;
    expect(detectHoldChanges(queued, seen(1_000, null, ["b"]), null, ruleOf("REDIS_LOCK")).changes[0]!.prediction).toBeNull();
    const plain = detectHoldChanges(undefined, { ...seen(0, "a", []), details: { layout: "token" } }, null, ruleOf("REDIS_LOCK")).next;
    expect(detectHoldChanges(plain, seen(1_000, "b", []), null, ruleOf("REDIS_LOCK")).changes[0]!.prediction).toEqual({
      predictedHolder: null,
      outcome: "NOT_PREDICTED",
    });
  });
});
