import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST as postCounts } from "@/app/api/v1/exclusivity-counts/route";
import { POST as postEvents } from "@/app/api/v1/exclusivity-events/route";
import { GET as getEvent } from "@/app/api/v1/violations/event/route";
import { GET as getTimeline } from "@/app/api/v1/violations/timeline/route";
import { createExclusivityClient } from "@/lib/exclusivity-client";
import { idText } from "@/lib/ingest/compact-id";
import { describeExplanation } from "@/lib/violations/describe-explanation";
import { formatDuration } from "@/lib/violations/format";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { ViolationTimeline } from "@/lib/violations/violation-types";
import { startRouteServer, type RouteServer } from "@/tests/bench/route-server";
import { createTestToken } from "@/tests/integration/ingest/ingest-test-kit";
import { getJson, openDb, uniquePrefix } from "@/tests/integration/violations/violations-test-kit";

// A service in "violations+counts" mode, end to end: the real client on real Redis, the ingest
// routes over HTTP, the read API. Only the violation is stored as an event; the drill-down
// explains it from its own row, and the chart knows the service reported (zeros, not gaps).

const BASE = "http://127.0.0.1/api/v1/violations";
const db = openDb();
const redis = [new Redis({ host: "127.0.0.1", port: 6379 }), new Redis({ host: "127.0.0.1", port: 6379 })];
const service = uniquePrefix("counts-svc");
const key = uniquePrefix("order");
let server: RouteServer;
const clientErrors: Error[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  const token = await createTestToken(db, "who-inside");
  server = await startRouteServer({ "POST /api/v1/exclusivity-events": postEvents, "POST /api/v1/exclusivity-counts": postCounts });
  const [podA, podB] = ["pod-a", "pod-b"].map((worker, i) =>
    createExclusivityClient({
      redis: redis[i]!,
      keyPrefix: `baton-test:${service}:`,
      baton: { url: server.url, token },
      service,
      worker,
      report: "violations+counts",
      onError: (error) => clientErrors.push(error),
    }),
  );
  // pod-a enters and stays ~80 ms; pod-b enters meanwhile: the one violation.
  let isInside!: () => void;
  const podAInside = new Promise<void>((resolve) => (isInside = resolve));
  const first = podA!.withExclusivity(
    key,
    async () => {
      isInside();
      await sleep(80);
    },
    { subscription: "orders-sub" },
  );
  await podAInside;
  await sleep(40);
  await podB!.withExclusivity(key, () => undefined, { subscription: "orders-sub" });
  await first;
  for (let i = 0; i < 5; i++) await podA!.withExclusivity(`${key}-${i}`, () => undefined, { subscription: "orders-sub" });
  await Promise.all([podA!.close(), podB!.close()]);
});

afterAll(async () => {
  await server.close();
  await Promise.all(redis.map((r) => r.quit()));
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.exclusivityCount.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.$disconnect();
});

describe("a violation that explains itself", () => {
  it("is the only event stored, and the read API returns who was inside and for how long", async () => {
    expect(clientErrors).toEqual([]);
    const stored = await db.exclusivityEvent.findMany({ where: { service }, select: { eventId: true, worker: true, counter: true } });
    expect(stored.map((e) => [e.worker, e.counter])).toEqual([["pod-b", 1]]);
    const eventId = idText(stored[0]!.eventId);

    const { status, body } = await getJson(getEvent, `${BASE}/event?id=${encodeURIComponent(eventId)}`);
    expect(status).toBe(200);
    const drilldown = body as unknown as KeyDrilldown;
    const violation = drilldown.events.find((e) => e.eventId === eventId)!;
    expect(violation.othersInside).toHaveLength(1);
    expect(violation.othersInside![0]!.worker).toBe("pod-a");
    expect(Date.parse(violation.othersInside![0]!.enteredAt)).toBeLessThan(Date.parse(violation.observedAt));

    const explanation = drilldown.explanations.find((e) => e.eventId === violation.eventId)!;
    expect(explanation.previousEntry).toBeNull();
    expect(explanation.othersInside[0]!.insideForMs).toBeGreaterThanOrEqual(35);
    const { evidence } = describeExplanation(explanation, {
      event: violation,
      deployments: new Map(),
      changes: new Map(),
      lockChanges: new Map(),
      windowMs: drilldown.windowMs,
      graceMs: drilldown.graceMs,
      timeZone: "UTC",
    });
    expect(evidence).toContain(`pod-a had been inside key ${key} for ${formatDuration(explanation.othersInside[0]!.insideForMs)} when pod-b entered.`);
    expect(drilldown.overlaps).toEqual([{ entered: "pod-b", inside: "pod-a", count: 1 }]);
  });
});

describe("the chart of a service in violations+counts mode", () => {
  async function timeline(serviceName: string): Promise<ViolationTimeline> {
    const { status, body } = await getJson(getTimeline, `${BASE}/timeline?range=1h&service=${encodeURIComponent(serviceName)}`);
    expect(status).toBe(200);
    return body as unknown as ViolationTimeline;
  }

  it("counts its increments in the rollup, so it shows as reporting", async () => {
    const rollup = await db.violationMinute.findMany({ where: { service }, select: { events: true, violations: true } });
    // 1 violation event + 6 counted clean increments (pod-a's first entry and its 5 others).
    expect(rollup.reduce((sum, r) => sum + r.events, 0)).toBe(7);
    expect(rollup.reduce((sum, r) => sum + r.violations, 0)).toBe(1);
    const chart = await timeline(service);
    expect(chart.totals.violations).toBe(1);
    // The rate: the violation event and the counted clean increments.
    expect(chart.buckets.reduce((sum, b) => sum + (b.increments ?? 0), 0)).toBe(7);
  });

  it("tells a silent reporter (no data) from a healthy one with no violations (zeros)", async () => {
    const quiet = uniquePrefix("quiet-svc");
    const silent = uniquePrefix("silent-svc");
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
    const token = await createTestToken(db, "who-inside-quiet");
    const response = await fetch(`${server.url}/api/v1/exclusivity-counts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        clientId: randomUUID(),
        service: quiet,
        worker: "pod-q",
        mode: "violations+counts",
        minute: new Date(minute).toISOString(),
        counts: [{ increments: 1200 }],
      }),
    });
    expect(response.status).toBe(200);
    try {
      const quietChart = await timeline(quiet);
      const bucket = quietChart.buckets.find((b) => Date.parse(b.start) <= minute && minute < Date.parse(b.end))!;
      expect(bucket.total).toEqual({ violations: 0, inside: 0, outside: 0 });
      expect(bucket.increments).toBe(1200);
      const silentChart = await timeline(silent);
      expect(silentChart.buckets.every((b) => b.total === null && b.increments === null)).toBe(true);
      expect(silentChart.trend.direction).toBe("unobserved");
    } finally {
      await db.exclusivityCount.deleteMany({ where: { service: quiet } });
      await db.violationMinute.deleteMany({ where: { service: quiet } });
    }
  });
});
