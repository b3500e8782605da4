import { describe, expect, it } from "vitest";

import { ResourceStateIndex, statesOf } from "@/lib/sources/pulsar/resource-state-index";
import { consumer, observation, stateFrom, T0, T1 } from "@/tests/unit/sources/pulsar/builders";

const TOPIC = "persistent://acme/orders/events";
const state = (subscription: string, partition: number, at = T0) =>
  stateFrom(observation({ topic: TOPIC, subscription, partition, holder: "w1", consumers: [consumer("w1")] }), at);

describe("ResourceStateIndex", () => {
  it("finds a topic's states by subscription and partition, a non-partitioned topic at -1", () => {
    const index = ResourceStateIndex.from([state("billing", 0), state("billing", 1), state("audit", -1)]);
    expect(index.size).toBe(3);
    expect(index.topic(TOPIC)?.get("billing")?.[1 + 1]).toMatchObject({ partition: 1, subscription: "billing" });
    expect(index.topic(TOPIC)?.get("audit")?.[0]).toMatchObject({ partition: -1 });
    expect(index.topic("persistent://acme/orders/other")).toBeUndefined();
    expect([...statesOf(index.topic(TOPIC))].map((s) => `${s.subscription}/${s.partition}`).sort()).toEqual(["audit/-1", "billing/0", "billing/1"]);
  });

  it("replaces a resource's state without counting it twice", () => {
    const index = ResourceStateIndex.from([state("billing", 0)]);
    index.set(state("billing", 0, T1));
    expect(index.size).toBe(1);
    expect([...index.values()].map((s) => s.lastObservedAt)).toEqual([T1]);
  });
});
