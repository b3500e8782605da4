import { describe, expect, it } from "vitest";

import { describeExplanation } from "@/lib/violations/describe-explanation";
import type { DrilldownEvent, ViolationExplanation } from "@/lib/violations/drilldown-types";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

const event: DrilldownEvent = {
  eventId: "e2",
  key: "user-42",
  counter: 1,
  isViolation: true,
  service: "orders",
  worker: "orders-2",
  topic: "persistent://acme/orders/events-partition-3",
  subscription: "orders-sub",
  partition: 3,
  traceId: null,
  traceUrl: null,
  observedAt: "2026-11-22T10:00:05.000Z",
  receivedAt: "2026-11-22T10:00:05.000Z",
  resource: { topic: "persistent://acme/orders/events", subscription: "orders-sub", partition: 3 },
  othersInside: null,
  lock: null,
};
const deployment: DeploymentBand = {
  id: "d1",
  service: "orders",
  version: "1.4.2",
  environment: "production",
  startedAt: "2026-11-22T09:58:00.000Z",
  finishedAt: null,
  windowEnd: "2026-11-22T10:12:00.000Z",
  link: null,
};
const change: LeaderChangeMarker = {
  id: "c1",
  cluster: "prod",
  topic: "persistent://acme/orders/events",
  partition: 3,
  subscription: "orders-sub",
  kind: "HOLDER_CHANGED",
  cause: "CLIENT",
  fromHolder: "orders-1",
  toHolder: "orders-2",
  oldSeenAt: "2026-11-22T09:59:58.000Z",
  newSeenAt: "2026-11-22T10:00:02.000Z",
};
const context = {
  event,
  deployments: new Map([["d1", deployment]]),
  changes: new Map([["c1", change]]),
  lockChanges: new Map(),
  windowMs: 120_000,
  graceMs: 300_000,
  timeZone: "UTC",
};

describe("describeExplanation", () => {
  it("leads with the cause in one sentence, then the evidence once each", () => {
    const explanation: ViolationExplanation = {
      eventId: "e2",
      previousEntry: { eventId: "e1", worker: "orders-1", observedAt: "2026-11-22T10:00:04.750Z", gapMs: 250 },
      othersInside: [],
      insideDeploymentIds: ["d1"],
      nearbyDeploymentIds: [],
      leaderChangeIds: ["c1"],
      lockChangeIds: [],
      cause: "rollout",
      owner: null,
      wakeAfterMove: null,
    };
    expect(describeExplanation(explanation, context)).toEqual({
      cause:
        "Rollout: orders 1.4.2 was being deployed (started 2026-11-22 09:58:00.000) when orders-2 entered key user-42; overlaps are expected while pods are replaced.",
      evidence: [
        "orders-2 entered while 1 other worker held the key; the last other entry was orders-1, 250 ms earlier.",
        "Inside the deployment of orders 1.4.2 (production), started 2026-11-22 09:58:00.000, still in progress (with 5 m of grace).",
        "Nearest leader change: holder changed on partition 3 of orders-sub (prod): orders-1 → orders-2, between 2026-11-22 09:59:58.000 and 2026-11-22 10:00:02.000 (3.0 s before the violation).",
      ],
      lockStory: null,
    });
  });

  it("names the nearest of many leader changes and counts the others instead of repeating them", () => {
    const changes = new Map(
      [0, 1, 2, 3].map((i) => [
        `c${i}`,
        { ...change, id: `c${i}`, oldSeenAt: null, newSeenAt: new Date(Date.parse("2026-11-22T10:00:05.000Z") - (i + 1) * 10_000).toISOString() },
      ]),
    );
    const explanation: ViolationExplanation = {
      eventId: "e2",
      previousEntry: null,
      othersInside: [],
      insideDeploymentIds: [],
      nearbyDeploymentIds: [],
      leaderChangeIds: ["c3", "c0", "c2", "c1"],
      lockChangeIds: [],
      cause: "failover-overlap",
      owner: null,
      wakeAfterMove: null,
    };
    const words = describeExplanation(explanation, { ...context, changes });
    expect(words.cause).toBe(
      "Failover overlap: the leader of orders-sub partition 3 moved from orders-1 to orders-2 at 2026-11-22 09:59:55.000, with no stall seen: a handover's brief overlap.",
    );
    const changeLines = words.evidence.filter((line) => line.includes("leader change"));
    expect(changeLines).toEqual([
      "Nearest leader change: holder changed on partition 3 of orders-sub (prod): orders-1 → orders-2, seen at 2026-11-22 09:59:55.000 (10 s before the violation); 3 more within ±2 m (listed under Leader changes nearby).",
    ]);
  });

  it("says an unexplained violation is the one to investigate first", () => {
    const explanation: ViolationExplanation = {
      eventId: "e2",
      previousEntry: null,
      othersInside: [],
      insideDeploymentIds: [],
      nearbyDeploymentIds: [],
      leaderChangeIds: [],
      lockChangeIds: [],
      cause: "unexplained",
      owner: null,
      wakeAfterMove: null,
    };
    expect(describeExplanation(explanation, context)).toEqual({
      cause: "Unexplained: no deployment of orders, no stall and no handover of its partition within ±2 m: investigate this one first.",
      evidence: ["orders-2 entered while 1 other worker held the key; no other worker's entry is recorded before it in this range."],
      lockStory: null,
    });
  });

  it("tells a frozen worker woken up by its silence when its key moved away, and who was inside", () => {
    const explanation: ViolationExplanation = {
      eventId: "e2",
      previousEntry: null,
      othersInside: [{ worker: "orders-9", enteredAt: "2026-11-22T10:00:04.000Z", insideForMs: 1_000 }],
      insideDeploymentIds: [],
      nearbyDeploymentIds: [],
      leaderChangeIds: ["c1"],
      lockChangeIds: [],
      cause: "worker-stalled",
      owner: null,
      wakeAfterMove: { from: "orders-2", to: "orders-9", changedAfter: "2026-11-22T09:59:58.000Z", changedAt: "2026-11-22T10:00:02.000Z" },
    };
    expect(describeExplanation(explanation, context).cause).toBe(
      "Worker stalled while another took its key: orders-2 had sent nothing for at least 5.0 s when key user-42 moved from it to orders-9 at 2026-11-22 10:00:02.000; it woke up and entered the key while orders-9 was inside it, no longer its own.",
    );
  });

  const unexplained = {
    eventId: "e2",
    insideDeploymentIds: [],
    nearbyDeploymentIds: [],
    leaderChangeIds: [],
    lockChangeIds: [],
    cause: "unexplained" as const,
    owner: null,
    wakeAfterMove: null,
  };
  const podA = { worker: "pod-a", enteredAt: "2026-11-22T10:00:04.150Z", insideForMs: 850 };

  it("explains a violation from its own row when the other worker's event is not stored", () => {
    const { evidence } = describeExplanation(
      { ...unexplained, previousEntry: null, othersInside: [podA] },
      { ...context, event: { ...event, worker: "pod-b", key: "K" } },
    );
    expect(evidence[0]).toBe("pod-a had been inside key K for 850 ms when pod-b entered.");
  });

  it("prefers the row's list when the latest other event stored is of a worker that was not inside", () => {
    // Counts mode: the latest stored event of another worker is an old violation of orders-9.
    const previousEntry = { eventId: "e0", worker: "orders-9", observedAt: "2026-11-22T09:50:00.000Z", gapMs: 605_000 };
    const { evidence } = describeExplanation(
      { ...unexplained, previousEntry, othersInside: [podA, { worker: "pod-c", enteredAt: "2026-11-22T10:00:04.900Z", insideForMs: 100 }] },
      { ...context, event: { ...event, counter: 3 } },
    );
    expect(evidence).toEqual([
      "pod-a had been inside key user-42 for 850 ms when orders-2 entered.",
      "pod-c had been inside key user-42 for 100 ms when orders-2 entered.",
      "1 more worker was inside (the event names at most 2).",
    ]);
  });

  it("keeps the existing sentence when the other worker's event is stored", () => {
    const previousEntry = { eventId: "e1", worker: "pod-a", observedAt: "2026-11-22T10:00:04.150Z", gapMs: 850 };
    const { evidence } = describeExplanation({ ...unexplained, previousEntry, othersInside: [podA] }, context);
    expect(evidence[0]).toBe("orders-2 entered while 1 other worker held the key; the last other entry was pod-a, 850 ms earlier.");
  });
});
