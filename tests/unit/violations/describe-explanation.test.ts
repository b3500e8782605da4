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
const deployment: DeploymentBand = { id: "d1", service: "orders", version: "1.4.2", environment: "production", startedAt: "2026-11-22T09:58:00.000Z", finishedAt: null, windowEnd: "2026-11-22T10:12:00.000Z", link: null };
const change: LeaderChangeMarker = { id: "c1", cluster: "prod", topic: "persistent://acme/orders/events", partition: 3, subscription: "orders-sub", kind: "HOLDER_CHANGED", cause: "CLIENT", fromHolder: "orders-1", toHolder: "orders-2", oldSeenAt: "2026-11-22T09:59:58.000Z", newSeenAt: "2026-11-22T10:00:02.000Z" };
const context = { event, deployments: new Map([["d1", deployment]]), changes: new Map([["c1", change]]), lockChanges: new Map(), windowMs: 120_000, graceMs: 300_000, timeZone: "UTC" };

describe("describeExplanation", () => {
  it("says plainly that a violation coincides with a deployment and a failover", () => {
    const explanation: ViolationExplanation = { eventId: "e2", previousEntry: { eventId: "e1", worker: "orders-1", observedAt: "2026-11-22T10:00:04.750Z", gapMs: 250 }, othersInside: [], insideDeploymentIds: ["d1"], nearbyDeploymentIds: [], leaderChangeIds: ["c1"], lockChangeIds: [], verdict: "deployment-and-failover", owner: null };
    expect(describeExplanation(explanation, context)).toEqual([
      "orders-2 entered while 1 other worker held the key; the last other entry was orders-1, 250 ms earlier.",
      "Coincides with the deployment of orders 1.4.2 (production), started 2026-11-22 09:58:00.000, still in progress (counted as inside, with 5 m of grace).",
      "Coincides with a leader change (failover overlap): holder changed on partition 3 of orders-sub (prod): orders-1 → orders-2, between 2026-11-22 09:59:58.000 and 2026-11-22 10:00:02.000 (3.0 s before the violation).",
    ]);
  });

  it("calls a violation with nothing around it a real failure", () => {
    const explanation: ViolationExplanation = { eventId: "e2", previousEntry: null, othersInside: [], insideDeploymentIds: [], nearbyDeploymentIds: [], leaderChangeIds: [], lockChangeIds: [], verdict: "unexplained", owner: null };
    expect(describeExplanation(explanation, context)).toEqual([
      "No deployment of orders and no leader change of its subscription partition within ±2 m: this is a real exclusivity failure.",
      "orders-2 entered while 1 other worker held the key; no other worker's entry is recorded before it in this range.",
    ]);
  });

  const unexplained = { eventId: "e2", insideDeploymentIds: [], nearbyDeploymentIds: [], leaderChangeIds: [], lockChangeIds: [], verdict: "unexplained" as const, owner: null };
  const podA = { worker: "pod-a", enteredAt: "2026-11-22T10:00:04.150Z", insideForMs: 850 };

  it("explains a violation from its own row when the other worker's event is not stored", () => {
    const lines = describeExplanation({ ...unexplained, previousEntry: null, othersInside: [podA] }, { ...context, event: { ...event, worker: "pod-b", key: "K" } });
    expect(lines[1]).toBe("pod-a had been inside key K for 850 ms when pod-b entered.");
  });

  it("prefers the row's list when the latest other event stored is of a worker that was not inside", () => {
    // Counts mode: the latest stored event of another worker is an old violation of orders-9.
    const previousEntry = { eventId: "e0", worker: "orders-9", observedAt: "2026-11-22T09:50:00.000Z", gapMs: 605_000 };
    const lines = describeExplanation({ ...unexplained, previousEntry, othersInside: [podA, { worker: "pod-c", enteredAt: "2026-11-22T10:00:04.900Z", insideForMs: 100 }] }, { ...context, event: { ...event, counter: 3 } });
    expect(lines.slice(1)).toEqual([
      "pod-a had been inside key user-42 for 850 ms when orders-2 entered.",
      "pod-c had been inside key user-42 for 100 ms when orders-2 entered.",
      "1 more worker was inside (the event names at most 2).",
    ]);
  });

  it("keeps the existing sentence when the other worker's event is stored", () => {
    const previousEntry = { eventId: "e1", worker: "pod-a", observedAt: "2026-11-22T10:00:04.150Z", gapMs: 850 };
    const lines = describeExplanation({ ...unexplained, previousEntry, othersInside: [podA] }, context);
    expect(lines[1]).toBe("orders-2 entered while 1 other worker held the key; the last other entry was pod-a, 850 ms earlier.");
  });
});
