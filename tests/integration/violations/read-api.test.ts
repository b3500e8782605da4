import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getDeployment } from "@/app/api/v1/violations/deployments/[id]/route";
import { GET as listDeployments } from "@/app/api/v1/violations/deployments/route";
import { GET as getEvent } from "@/app/api/v1/violations/event/route";
import { GET as getKey } from "@/app/api/v1/violations/key/route";
import { GET as getLeaderChanges } from "@/app/api/v1/violations/leader-changes/route";
import { GET as getCauses } from "@/app/api/v1/violations/causes/route";
import { GET as getTimeline } from "@/app/api/v1/violations/timeline/route";
import { GET as getTop } from "@/app/api/v1/violations/top/route";
import { createDeployment, getJson, MINUTE, openDb, openIngestPool, uniquePrefix, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";

// The violations read API through its route handlers: the answers' shapes, and a 400 that names
// the parameter for every kind of bad query (dub-style table-driven cases).

const BASE = "http://127.0.0.1/api/v1/violations";
const db = openDb();
const pool = openIngestPool();
const service = uniquePrefix("api");
const key = uniquePrefix("api-key");
const eventIds: string[] = [];
let deploymentId: string;

beforeAll(async () => {
  const now = Date.now();
  deploymentId = await createDeployment(db, { service, startedAtMs: now - 30 * MINUTE, finishedAtMs: now - 20 * MINUTE, version: "9.9.9" });
  const events = [
    {
      eventId: uniquePrefix("ev"),
      service,
      key,
      worker: "w-1",
      counter: 0,
      observedAtMs: now - 25 * MINUTE,
      subscription: "s",
      topic: "persistent://a/b/c",
      partition: 0,
      traceId: "trace-1",
    },
    {
      eventId: uniquePrefix("ev"),
      service,
      key,
      worker: "w-2",
      counter: 1,
      observedAtMs: now - 25 * MINUTE + 400,
      subscription: "s",
      topic: "persistent://a/b/c",
      partition: 0,
      traceId: "trace-2",
    },
    {
      eventId: uniquePrefix("ev"),
      service,
      key,
      worker: "w-2",
      counter: 1,
      observedAtMs: now - 5 * MINUTE,
      subscription: "s",
      topic: "persistent://a/b/c",
      partition: 0,
      traceId: null,
    },
  ];
  eventIds.push(...events.map((e) => e.eventId));
  await writeTestEvents(pool, events);
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.deployment.deleteMany({ where: { service } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

const deploymentContext = (id: string) => ({ params: Promise.resolve({ id }) });

describe("violations read API", () => {
  it("GET /timeline: classified buckets, totals, trend and the deployments", async () => {
    const { status, body } = await getJson(getTimeline, `${BASE}/timeline?range=1h&service=${service}&tz=Europe/Berlin`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      timeZone: "Europe/Berlin",
      bucketMs: MINUTE,
      graceMs: 5 * MINUTE,
      environment: null,
      totals: { violations: 2, inside: 1, outside: 1 },
    });
    expect(body.services).toEqual([{ name: service, violations: 2, inside: 1, outside: 1 }]);
    expect(body.deployments).toEqual([expect.objectContaining({ id: deploymentId, service, version: "9.9.9", environment: "production" })]);
    // A range that is not on minute boundaries touches 61 minutes: the first and last buckets are cut.
    expect(body.buckets).toHaveLength(61);
  });

  it("GET /top: keys, workers, services and subscriptions with their split", async () => {
    const { status, body } = await getJson(getTop, `${BASE}/top?range=1h&service=${service}&lists=keys,workers,subscriptions&ranking=outside`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ranking: "outside",
      keys: [{ name: key, violations: 2, inside: 1, outside: 1 }],
      workers: [{ name: "w-2", violations: 2, inside: 1, outside: 1 }],
      services: [],
    });
    expect(body.subscriptions).toEqual([{ service, subscription: "s", violations: 2, inside: 1, outside: 1 }]);
    // Keys and workers come from raw violations, over any range the API takes (up to 31 days).
    const month = await getJson(getTop, `${BASE}/top?from=${Date.now() - 30 * 86_400_000}&service=${service}`);
    expect(month.body).toMatchObject({ keys: [{ name: key, violations: 2 }], workers: [{ name: "w-2", violations: 2 }], services: [{ name: service }] });
  });

  it("GET /key and /event: the key's events with what coincides with each violation", async () => {
    const { status, body } = await getJson(getKey, `${BASE}/key?key=${encodeURIComponent(key)}&range=1h`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ key, counts: { events: 3, violations: 2, inside: 1, outside: 1 }, focusEventId: null });
    expect((body.explanations as { cause: string }[]).map((e) => e.cause)).toEqual(["rollout", "unexplained"]);
    expect(body.causes).toEqual({ "two-hands": 0, rollout: 1, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 0, unexplained: 1 });
    const event = await getJson(getEvent, `${BASE}/event?id=${encodeURIComponent(eventIds[1]!)}`);
    expect(event.status).toBe(200);
    expect(event.body).toMatchObject({ key, focusEventId: eventIds[1] });
    expect((event.body.events as unknown[]).length).toBe(2);
    // With its time (as the drill-down's links pass it), the same answer from one hour's partition.
    const observedAt = (body.events as { eventId: string; observedAt: string }[]).find((e) => e.eventId === eventIds[1])!.observedAt;
    const byTime = await getJson(getEvent, `${BASE}/event?id=${encodeURIComponent(eventIds[1]!)}&at=${encodeURIComponent(observedAt)}`);
    expect(byTime).toMatchObject({ status: 200, body: { key, focusEventId: eventIds[1] } });
    expect(byTime.body.events).toEqual(event.body.events);
    const elsewhen = await getJson(getEvent, `${BASE}/event?id=${encodeURIComponent(eventIds[1]!)}&at=${Date.parse(observedAt) + 3_600_000}`);
    expect(elsewhen).toMatchObject({ status: 404, body: { error: { code: "event_not_found" } } });
  });

  it("GET /causes: the latest violations with their causes and keys' owners, counted per cause", async () => {
    const { status, body } = await getJson(getCauses, `${BASE}/causes?range=1h&service=${service}`);
    expect(status).toBe(200);
    // The same causes as the key's drill-down; nothing watches persistent://a/b/c: a plain reason, never a guessed owner.
    expect(body).toMatchObject({
      limit: 1000,
      isTruncated: false,
      counts: { "two-hands": 0, rollout: 1, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 0, unexplained: 1 },
    });
    expect(body.violations).toEqual([
      expect.objectContaining({ eventId: eventIds[2], cause: "unexplained", owner: { isComputed: false, reason: "no-resource", detail: expect.any(String) } }),
      expect.objectContaining({ eventId: eventIds[1], cause: "rollout" }),
    ]);
    const one = await getJson(getCauses, `${BASE}/causes?range=1h&service=${service}&limit=1&cause=rollout`);
    expect(one.body).toMatchObject({ limit: 1, isTruncated: true, counts: { unexplained: 1, rollout: 0 }, violations: [] });
  });

  it("GET /leader-changes: the chart's markers", async () => {
    const { status, body } = await getJson(getLeaderChanges, `${BASE}/leader-changes?range=6h&subscription=${uniquePrefix("none")}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ buckets: [], total: 0 });
  });

  it("GET /deployments and /deployments/{id}: the violations each deployment coincided with", async () => {
    const list = await getJson(listDeployments, `${BASE}/deployments?range=24h&service=${service}`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, deployments: [{ id: deploymentId, violations: 1 }] });
    const one = await getJson(getDeployment, `${BASE}/deployments/${deploymentId}`, deploymentContext(deploymentId));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      total: 1,
      keys: [{ name: key, violations: 1 }],
      workers: [{ name: "w-2", violations: 1 }],
      events: [{ eventId: eventIds[1], traceId: "trace-2" }],
    });
  });

  it.each([
    ["timeline", "timeline?range=2h", "range", "must be one of 1h, 6h, 24h, 7d", getTimeline],
    ["timeline", "timeline?range=1h&from=1", "range", "cannot be combined with from or to", getTimeline],
    ["timeline", "timeline?from=2026-11-22T10:00:00", "from", "must be an RFC 3339 date-time with a time zone, or epoch milliseconds", getTimeline],
    ["timeline", "timeline?from=1795000000000&to=1794000000000", "from", "must be before to", getTimeline],
    ["timeline", "timeline?from=1700000000000&to=1795000000000", "from", "must be at most 31 days before to", getTimeline],
    ["timeline", "timeline?tz=Mars/Olympus", "tz", "must be an IANA time zone, e.g. Europe/Berlin or UTC", getTimeline],
    ["timeline", "timeline?servce=orders", "servce", "is not a known parameter", getTimeline],
    ["timeline", "timeline?service=", "service", "must not be empty", getTimeline],
    ["timeline", "timeline?service=a&service=b", "service", "is given more than once", getTimeline],
    ["top", "top?limit=0", "limit", "must be at least 1", getTop],
    ["top", "top?limit=abc", "limit", "must be a number", getTop],
    ["top", "top?ranking=worst", "ranking", 'must be "violations" or "outside"', getTop],
    ["top", "top?lists=keys,owners", "lists", "must be a comma-separated list of keys, workers, services, subscriptions", getTop],
    ["key", "key?range=1h", "key", "is required", getKey],
    ["event", "event", "id", "is required", getEvent],
    ["event", "event?id=e-1&at=yesterday", "at", "must be an RFC 3339 date-time with a time zone, or epoch milliseconds", getEvent],
    ["leader-changes", "leader-changes?cluster=x", "cluster", "is not a known parameter", getLeaderChanges],
    ["deployments", "deployments?limit=501", "limit", "must be at most 500", listDeployments],
    ["causes", "causes?limit=10001", "limit", "must be at most 10000", getCauses],
    ["causes", "causes?cause=sideways", "cause", "must be one of rollout, two-hands, holder-stalled, worker-stalled, failover-overlap, unexplained", getCauses],
    ["causes", "causes?key=x", "key", "is not a known parameter", getCauses],
  ])("GET /%s answers 400 naming the parameter (?%s)", async (_name, query, field, message, handler) => {
    const { status, body } = await getJson(handler as never, `${BASE}/${query}`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: "invalid_request",
      message: `The query is invalid: ${field} ${message}.`,
      details: { issues: expect.arrayContaining([{ field, message }]) },
    });
  });

  it("answers 404 for an unknown event or deployment, and refuses parameters on a deployment", async () => {
    const event = await getJson(getEvent, `${BASE}/event?id=${uniquePrefix("missing")}`);
    expect(event).toMatchObject({ status: 404, body: { error: { code: "event_not_found" } } });
    const missing = await getJson(getDeployment, `${BASE}/deployments/999999999`, deploymentContext("999999999"));
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "deployment_not_found" } } });
    const extra = await getJson(getDeployment, `${BASE}/deployments/${deploymentId}?x=1`, deploymentContext(deploymentId));
    expect(extra).toMatchObject({ status: 400, body: { error: { details: { issues: [{ field: "x", message: "is not a known parameter" }] } } } });
  });
});
