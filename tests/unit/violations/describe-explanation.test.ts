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
};
const deployment: DeploymentBand = { id: "d1", service: "orders", version: "1.4.2", environment: "production", startedAt: "2026-11-22T09:58:00.000Z", finishedAt: null, windowEnd: "2026-11-22T10:12:00.000Z", link: null };
const change: LeaderChangeMarker = { id: "c1", cluster: "prod", topic: "persistent://acme/orders/events", partition: 3, subscription: "orders-sub", kind: "HOLDER_CHANGED", cause: "CLIENT", fromHolder: "orders-1", toHolder: "orders-2", oldSeenAt: "2026-11-22T09:59:58.000Z", newSeenAt: "2026-11-22T10:00:02.000Z" };
const context = { event, deployments: new Map([["d1", deployment]]), changes: new Map([["c1", change]]), windowMs: 120_000, graceMs: 300_000, timeZone: "UTC" };

describe("describeExplanation", () => {
  it("says plainly that a violation coincides with a deployment and a failover", () => {
    const explanation: ViolationExplanation = { eventId: "e2", previousEntry: { eventId: "e1", worker: "orders-1", observedAt: "2026-11-22T10:00:04.750Z", gapMs: 250 }, insideDeploymentIds: ["d1"], nearbyDeploymentIds: [], leaderChangeIds: ["c1"], verdict: "deployment-and-failover" };
    expect(describeExplanation(explanation, context)).toEqual([
      "orders-2 entered while 1 other worker held the key; the last other entry was orders-1, 250 ms earlier.",
      "Coincides with the deployment of orders 1.4.2 (production), started 2026-11-22 09:58:00.000, still in progress (counted as inside, with 5 m of grace).",
      "Coincides with a leader change (failover overlap): holder changed on partition 3 of orders-sub (prod): orders-1 → orders-2, between 2026-11-22 09:59:58.000 and 2026-11-22 10:00:02.000 (3.0 s before the violation).",
    ]);
  });

  it("calls a violation with nothing around it a real failure", () => {
    const explanation: ViolationExplanation = { eventId: "e2", previousEntry: null, insideDeploymentIds: [], nearbyDeploymentIds: [], leaderChangeIds: [], verdict: "unexplained" };
    expect(describeExplanation(explanation, context)).toEqual([
      "No deployment of orders and no leader change of its subscription partition within ±2 m: this is a real exclusivity failure.",
      "orders-2 entered while 1 other worker held the key; no other worker's entry is recorded before it in this range.",
    ]);
  });
});
