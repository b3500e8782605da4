import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { DRILLDOWN_EVENT_LIMIT, getEventDrilldown, getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import {
  createDeployment,
  createLeaderChange,
  MINUTE,
  openDb,
  openIngestPool,
  uniquePrefix,
  writeTestEvents,
} from "@/tests/integration/violations/violations-test-kit";

// The drill-down against the real schema: leader changes are found through the subscription
// partition the events name (a partition's own topic name or the base name with a partition),
// deployments of any service within the window, trace links through the template.

const db = openDb();
const pool = openIngestPool();
const service = uniquePrefix("dd");
const otherService = uniquePrefix("dd-other");
const topic = `persistent://acme/${uniquePrefix("ns")}/events`;
const subscription = uniquePrefix("sub");
// Days in the past, at a random moment: other test files write deployments and leader changes
// at the real now into the same database, and the drill-down shows anything within its window.
const NOW = Date.now() - 3 * 24 * 60 * MINUTE - Math.floor(Math.random() * 24 * 60) * MINUTE;
const T = NOW - 30 * MINUTE;
const settings = { windowMs: 2 * MINUTE, graceMs: 5 * MINUTE, traceUrlTemplate: "http://127.0.0.1:16686/trace/{traceId}", retentionDays: 30, nowMs: NOW };
const keys = { partitioned: uniquePrefix("k-part"), base: uniquePrefix("k-base"), far: uniquePrefix("k-far"), hot: uniquePrefix("k-hot") };

beforeAll(async () => {
  // The leader of partition 3 moved 20 s before T; partition 4's at T (another partition).
  await createLeaderChange(db, { topic, subscription, partition: 3, oldSeenAtMs: T - 25_000, newSeenAtMs: T - 20_000 });
  await createLeaderChange(db, { topic, subscription, partition: 4, oldSeenAtMs: T - 5_000, newSeenAtMs: T });
  await createDeployment(db, { service: otherService, startedAtMs: T - MINUTE, finishedAtMs: T + MINUTE, version: "2.0.0" });
  const event = (key: string, worker: string, counter: number, atMs: number, topicName: string, partition: number | null) => ({
    service,
    key,
    worker,
    counter,
    observedAtMs: atMs,
    topic: topicName,
    subscription,
    partition,
    traceId: `trace-${worker}-${atMs}`,
  });
  await writeTestEvents(pool, [
    event(keys.partitioned, "w-1", 0, T - 1_000, `${topic}-partition-3`, null),
    event(keys.partitioned, "w-2", 1, T, `${topic}-partition-3`, null),
    event(keys.base, "w-2", 1, T, topic, 3),
    event(keys.far, "w-2", 1, T + 10 * MINUTE, topic, 3),
    ...Array.from({ length: DRILLDOWN_EVENT_LIMIT + 5 }, (_, i) => event(keys.hot, `w-${i % 3}`, i % 2, T - 20 * MINUTE + i * 100, topic, 3)),
  ]);
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.deployment.deleteMany({ where: { service: { in: [service, otherService] } } });
  await db.cluster.deleteMany({ where: { resources: { some: { subscription } } } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

describe("key drill-down", () => {
  it.each([
    ["a partition's own topic name", "partitioned"],
    ["the base topic name and a partition", "base"],
  ] as const)("finds the leader change of the subscription partition named by %s, and no other partition's", async (_label, which) => {
    const drilldown = await getKeyDrilldown(db, { key: keys[which], fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    expect(drilldown.leaderChanges.map((c) => [c.partition, c.subscription, c.topic])).toEqual([[3, subscription, topic]]);
    const violation = drilldown.explanations.at(-1)!;
    expect(violation.cause).toBe("failover-overlap");
    expect(violation.nearbyDeploymentIds).toHaveLength(1);
    expect(drilldown.deployments.map((d) => d.service)).toEqual([otherService]);
  });

  it("finds nothing around a violation far from any change or deployment", async () => {
    const drilldown = await getKeyDrilldown(db, { key: keys.far, fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    expect(drilldown.leaderChanges).toEqual([]);
    expect(drilldown.deployments).toEqual([]);
    expect(drilldown.explanations.map((e) => e.cause)).toEqual(["unexplained"]);
    expect(drilldown.causes).toEqual({ "two-hands": 0, rollout: 0, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 0, unexplained: 1 });
  });

  it("links traces through the template and knows who was inside", async () => {
    const drilldown = await getKeyDrilldown(db, { key: keys.partitioned, fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    expect(drilldown.events.map((e) => e.traceUrl)).toEqual([
      `http://127.0.0.1:16686/trace/trace-w-1-${T - 1_000}`,
      `http://127.0.0.1:16686/trace/trace-w-2-${T}`,
    ]);
    expect(drilldown.overlaps).toEqual([{ entered: "w-2", inside: "w-1", count: 1 }]);
    expect(drilldown.explanations[0]!.previousEntry).toMatchObject({ worker: "w-1", gapMs: 1_000 });
  });

  it("shows the latest events of a busy key and counts them all", async () => {
    const drilldown = await getKeyDrilldown(db, { key: keys.hot, fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    expect(drilldown.isTruncated).toBe(true);
    expect(drilldown.events).toHaveLength(DRILLDOWN_EVENT_LIMIT);
    expect(drilldown.counts.events).toBe(DRILLDOWN_EVENT_LIMIT + 5);
    expect(drilldown.events[0]!.observedAt < drilldown.events.at(-1)!.observedAt).toBe(true);
  });

  it("opens a single event with its key around it", async () => {
    const first = await getKeyDrilldown(db, { key: keys.base, fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    const drilldown = await getEventDrilldown(db, { eventId: first.events[0]!.eventId, atMs: null }, settings);
    expect(drilldown.focusEventId).toBe(first.events[0]!.eventId);
    expect(Date.parse(drilldown.to) - Date.parse(drilldown.from)).toBe(30 * MINUTE);
    await expect(getEventDrilldown(db, { eventId: uniquePrefix("missing"), atMs: null }, settings)).rejects.toMatchObject({
      status: 404,
      code: "event_not_found",
    });
  });

  it("opens a single event by its id and time, and finds nothing at another time", async () => {
    const first = await getKeyDrilldown(db, { key: keys.base, fromMs: NOW - 60 * MINUTE, toMs: NOW }, settings);
    const { eventId, observedAt } = first.events[0]!;
    const drilldown = await getEventDrilldown(db, { eventId, atMs: Date.parse(observedAt) }, settings);
    expect(drilldown.focusEventId).toBe(eventId);
    expect(Date.parse(drilldown.to) - Date.parse(drilldown.from)).toBe(30 * MINUTE);
    await expect(getEventDrilldown(db, { eventId, atMs: Date.parse(observedAt) + 1 }, settings)).rejects.toMatchObject({
      status: 404,
      code: "event_not_found",
    });
  });
});
