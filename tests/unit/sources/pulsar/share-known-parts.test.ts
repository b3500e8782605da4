import { describe, expect, it } from "vitest";

import { applyObservations } from "@/lib/sources/pulsar/apply-observations";
import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";
import type { Observation } from "@/lib/poller/contract/partition-state";
import { ResourceStateIndex } from "@/lib/sources/pulsar/resource-state-index";
import { shareConsumers, shareKnownParts } from "@/lib/sources/pulsar/share-known-parts";
import { parseTopicName } from "@/lib/pulsar/topic-name";
import { consumer, observation, stateFrom, T0, T1 } from "@/tests/unit/sources/pulsar/builders";

const TOPIC = "persistent://acme/orders/events";
const watched = { name: parseTopicName(TOPIC)!.topic, fullName: TOPIC, isPartitioned: true };

function ok(observations: Observation[]): TopicFetchResult {
  return { topic: watched, isOk: true, observedAt: T1, observations, missingPartitions: [], partitionCount: 2 };
}

/** The same observation as a fresh answer gives it: new objects with equal values. */
function parsedAgain(obs: Observation): Observation {
  return structuredClone(obs);
}

describe("shareConsumers", () => {
  it("gives the known array when every consumer is equal, and shares the equal ones otherwise", () => {
    const known = [consumer("w1"), consumer("w2")];
    expect(shareConsumers(known, structuredClone(known))).toBe(known);
    const busier = [structuredClone(known[0]!), { ...known[1]!, msgRateOut: 7 }];
    const shared = shareConsumers(known, busier);
    expect(shared).not.toBe(known);
    expect(shared[0]).toBe(known[0]);
    expect(shared[1]).toBe(busier[1]);
    expect(shared).toEqual(busier);
  });

  it("shares nothing for a consumer that reconnected or a list that changed its length", () => {
    const known = [consumer("w1", "c1"), consumer("w2", "c1")];
    const reconnected = [consumer("w1", "c2"), consumer("w2", "c1")];
    const shared = shareConsumers(known, reconnected);
    expect(shared[0]).toBe(reconnected[0]);
    expect(shared[1]).toBe(known[1]);
    const fewer = [consumer("w1", "c1")];
    expect(shareConsumers(known, fewer)).not.toBe(known);
    expect(shareConsumers(known, fewer)[0]).toBe(known[0]);
  });
});

describe("shareKnownParts", () => {
  const p0 = observation({ partition: 0, holder: "w1", consumers: [consumer("w1", "c1"), consumer("w2", "c1")] });
  const p1 = observation({ partition: 1, holder: "w2", consumers: [consumer("w1", "c1"), consumer("w2", "c1")] });

  it("points an answer's unchanged consumers at the current state's, and leaves changed ones alone", () => {
    const states = ResourceStateIndex.from([stateFrom(p0, T0), stateFrom(p1, T0)]);
    const again0 = parsedAgain(p0);
    const killed1 = observation({ partition: 1, holder: "w1", consumers: [consumer("w1", "c1")] });
    shareKnownParts(ok([again0, killed1]), states);
    expect(again0.consumers).toBe(states.topic(TOPIC)!.get("billing")![1]!.consumers);
    expect(killed1.consumers).not.toBe(states.topic(TOPIC)!.get("billing")![2]!.consumers);
    expect(killed1.consumers[0]).toBe(states.topic(TOPIC)!.get("billing")![2]!.consumers[0]);
  });

  it("changes nothing that a cycle computes from the answer", () => {
    const states = ResourceStateIndex.from([stateFrom(p0, T0), stateFrom(p1, T0)]);
    const answer = () => [parsedAgain(p0), observation({ partition: 1, holder: "w1", consumers: [consumer("w1", "c1"), consumer("w3", "c2")] })];
    const apply = (result: TopicFetchResult) => applyObservations({ previous: states, results: [result], pollAt: T1, isRecoveringFromOutage: false });
    const plain = apply(ok(answer()));
    const shared = apply(shareKnownParts(ok(answer()), states));
    expect(shared).toEqual(plain);
    expect(shared.changes.map((c) => c.kind)).toEqual(["HOLDER_CHANGED"]);
  });

  it("leaves a failed answer and a resource seen for the first time as they are", () => {
    const states = ResourceStateIndex.from([stateFrom(p0, T0)]);
    const failed: TopicFetchResult = { topic: watched, isOk: false, observedAt: T1, error: "timeout", isNotFound: false };
    expect(shareKnownParts(failed, states)).toBe(failed);
    const fresh = observation({ partition: 0, subscription: "audit", holder: "w9", consumers: [consumer("w9")] });
    const consumers = fresh.consumers;
    shareKnownParts(ok([fresh]), states);
    expect(fresh.consumers).toBe(consumers);
  });
});
