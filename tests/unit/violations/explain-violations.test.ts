import { describe, expect, it } from "vitest";

import { changesNearEvents, countOverlaps, explainViolations, findPreviousEntries, isChangeNear, summariseWorkers } from "@/lib/violations/explain-violations";
import type { DrilldownEvent } from "@/lib/violations/drilldown-types";
import { resourceRefOf } from "@/lib/violations/resource-ref";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const T0 = Date.parse("2026-11-22T10:00:00Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function event(id: string, worker: string, counter: number, offsetMs: number, partition = 3, service = "orders"): DrilldownEvent {
  const topic = `persistent://acme/orders/events-partition-${partition}`;
  return {
    eventId: id,
    key: "user-42",
    counter,
    isViolation: counter > 0,
    service,
    worker,
    topic,
    subscription: "orders-sub",
    partition,
    traceId: null,
    traceUrl: null,
    observedAt: iso(offsetMs),
    receivedAt: iso(offsetMs),
    resource: resourceRefOf({ topic, subscription: "orders-sub", partition }),
    othersInside: null,
    lock: null,
  };
}

function change(id: string, partition: number, oldMs: number | null, newMs: number): LeaderChangeMarker {
  return {
    id,
    cluster: "prod",
    topic: "persistent://acme/orders/events",
    partition,
    subscription: "orders-sub",
    kind: "HOLDER_CHANGED",
    cause: "CLIENT",
    fromHolder: "w1",
    toHolder: "w2",
    oldSeenAt: oldMs === null ? null : iso(oldMs),
    newSeenAt: iso(newMs),
  };
}

function deployment(id: string, service: string, startMs: number, finishMs: number | null, windowEndMs: number): DeploymentBand {
  return {
    id,
    service,
    version: "1",
    environment: "production",
    startedAt: iso(startMs),
    finishedAt: finishMs === null ? null : iso(finishMs),
    windowEnd: iso(windowEndMs),
    link: null,
  };
}

const events = [
  event("e1", "w1", 0, 0),
  event("e2", "w1", 0, 1 * SECOND),
  event("e3", "w2", 1, 1.3 * SECOND),
  event("e4", "w2", 0, 5 * SECOND),
  event("e5", "w3", 2, 5.1 * SECOND),
];

describe("who was inside", () => {
  it("finds each entry's latest earlier entry by another worker", () => {
    const previous = findPreviousEntries(events);
    expect(previous.get("e1")).toBeUndefined();
    expect(previous.get("e2")).toBeUndefined();
    expect(previous.get("e3")?.eventId).toBe("e2");
    expect(previous.get("e4")?.eventId).toBe("e2");
    expect(previous.get("e5")?.eventId).toBe("e4");
  });

  it("counts the pairs (who entered, who was inside) over the violations", () => {
    expect(countOverlaps(events, findPreviousEntries(events))).toEqual([
      { entered: "w2", inside: "w1", count: 1 },
      { entered: "w3", inside: "w2", count: 1 },
    ]);
  });

  it("takes who was inside from the event's own row when it names them, and how long each had been inside", () => {
    // Only the violation is stored (counts mode): the row names w1 and w4.
    const violation = {
      ...event("v", "w2", 2, 10 * SECOND),
      othersInside: [
        { worker: "w1", enteredAt: iso(9.15 * SECOND) },
        { worker: "w4", enteredAt: iso(9.9 * SECOND) },
      ],
    };
    expect(countOverlaps([violation], findPreviousEntries([violation]))).toEqual([
      { entered: "w2", inside: "w1", count: 1 },
      { entered: "w2", inside: "w4", count: 1 },
    ]);
    const [explanation] = explainViolations({ events: [violation], changes: [], lockChanges: [], deployments: [], windowMs: 60_000, nowMs: T0 + 60_000 });
    expect(explanation!.previousEntry).toBeNull();
    expect(explanation!.othersInside).toEqual([
      { worker: "w1", enteredAt: iso(9.15 * SECOND), insideForMs: 850 },
      { worker: "w4", enteredAt: iso(9.9 * SECOND), insideForMs: 100 },
    ]);
  });

  it("summarises each worker's entries", () => {
    expect(summariseWorkers(events).map((w) => [w.worker, w.events, w.violations, w.firstAt])).toEqual([
      ["w2", 2, 1, iso(1.3 * SECOND)],
      ["w3", 1, 1, iso(5.1 * SECOND)],
      ["w1", 2, 0, iso(0)],
    ]);
  });
});

describe("what coincides with a violation", () => {
  it("finds a leader change whose interval comes within the window", () => {
    expect(isChangeNear(change("c", 3, -3 * MINUTE, -2 * MINUTE), T0, 2 * MINUTE)).toBe(true);
    expect(isChangeNear(change("c", 3, -3 * MINUTE, -2 * MINUTE - 1), T0, 2 * MINUTE)).toBe(false);
    // A long poll gap: the change happened somewhere in (old, new], which spans the violation.
    expect(isChangeNear(change("c", 3, -10 * MINUTE, 10 * MINUTE), T0, 2 * MINUTE)).toBe(true);
    expect(isChangeNear(change("c", 3, 2 * MINUTE + 1, 3 * MINUTE), T0, 2 * MINUTE)).toBe(false);
    expect(isChangeNear(change("c", 3, null, 2 * MINUTE), T0, 2 * MINUTE)).toBe(true);
  });

  it("gives each violation its cause: rollout (also over a failover), failover overlap, or unexplained", () => {
    const explained = explainViolations({
      events: [
        event("in", "w2", 1, 0),
        event("fail", "w2", 1, 30 * MINUTE),
        event("both", "w2", 1, 60 * MINUTE),
        event("alone", "w2", 1, 90 * MINUTE),
        event("other-partition", "w2", 1, 120 * MINUTE, 4),
      ],
      lockChanges: [],
      changes: [
        change("c1", 3, 30 * MINUTE - 20 * SECOND, 30 * MINUTE - 10 * SECOND),
        change("c2", 3, 60 * MINUTE + 5 * SECOND, 60 * MINUTE + 9 * SECOND),
        change("c3", 3, 120 * MINUTE, 120 * MINUTE + SECOND),
      ],
      deployments: [
        deployment("d1", "orders", -2 * MINUTE, 3 * MINUTE, 9 * MINUTE),
        deployment("d2", "orders", 58 * MINUTE, null, 70 * MINUTE),
        deployment("d3", "billing", 89 * MINUTE, 91 * MINUTE, 97 * MINUTE),
      ],
      windowMs: 2 * MINUTE,
      nowMs: T0 + 64 * MINUTE,
    });
    expect(explained.map((e) => [e.eventId, e.cause, e.insideDeploymentIds, e.nearbyDeploymentIds, e.leaderChangeIds])).toEqual([
      ["in", "rollout", ["d1"], [], []],
      ["fail", "failover-overlap", [], [], ["c1"]],
      ["both", "rollout", ["d2"], [], ["c2"]],
      ["alone", "unexplained", [], ["d3"], []],
      // A change of another partition of the same subscription does not count.
      ["other-partition", "unexplained", [], [], []],
    ]);
  });
});

describe("changesNearEvents", () => {
  it("keeps the changes of the partitions the events name, near one of them; any partition when the event names none", () => {
    const known = event("e1", "w1", 1, 0, 3);
    const unknown = {
      ...event("e2", "w1", 1, 60 * MINUTE, 3),
      partition: null,
      resource: { topic: "persistent://acme/orders/events", subscription: "orders-sub", partition: null },
    };
    const changes = [
      change("p3-near", 3, -MINUTE, -30 * SECOND),
      change("p4-near", 4, -MINUTE, -30 * SECOND),
      change("p3-far", 3, 10 * MINUTE, 11 * MINUTE),
      change("p5-near-unknown", 5, 59 * MINUTE, 59 * MINUTE + SECOND),
    ];
    expect(changesNearEvents(changes, [known, unknown], 2 * MINUTE).map((c) => c.id)).toEqual(["p3-near", "p5-near-unknown"]);
  });
});
