import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getChanges } from "@/app/api/v1/subscriptions/changes/route";
import { GET as getTimeline } from "@/app/api/v1/subscriptions/timeline/route";
import type { SubscriptionTimeline } from "@/lib/subscriptions/get-subscription-timeline";
import type { ChangePage } from "@/lib/subscriptions/list-subscription-changes";
import { answer, CLUSTER, createChange, createCluster, createResource, openDb, RUN } from "@/tests/integration/read-api/read-api-kit";

const db = openDb();
const topic = `persistent://t${RUN}/orders/events`;
const service = `billing${RUN}`;
const subscription = "billing";
const [c1, c2, c3] = [1, 2, 3].map((i) => `${service}-${i}`) as [string, string, string];
const HOUR = 3_600_000;
const now = Date.now();
const base = () => new URLSearchParams({ cluster: CLUSTER, topic, subscription });

function url(path: string, extra: Record<string, string> = {}, without: string[] = []): string {
  const params = base();
  for (const key of without) params.delete(key);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return `http://127.0.0.1/api/v1/subscriptions/${path}?${params}`;
}
const timeline = (extra: Record<string, string> = {}, without: string[] = []) => answer(getTimeline(new Request(url("timeline", extra, without)), {}));
const changes = (extra: Record<string, string> = {}, without: string[] = []) => answer(getChanges(new Request(url("changes", extra, without)), {}));

beforeAll(async () => {
  const clusterId = await createCluster(db, CLUSTER);
  const p0 = await createResource(db, clusterId, { topic, partition: 0, subscription, holder: c2, holderSince: new Date(now - HOUR), consumers: [c1, c2, c3] });
  const p1 = await createResource(db, clusterId, { topic, partition: 1, subscription, holder: c3, consumers: [c1, c2, c3] });
  // p0: billing-1 until 2 h ago, then billing-2. p1: billing-3 throughout, one hidden flap.
  await createChange(db, clusterId, p0, { kind: "HOLDER_CHANGED", from: c1, to: c2, at: new Date(now - 2 * HOUR), details: { removed: ["gone-1"] } });
  await createChange(db, clusterId, p1, { kind: "HIDDEN_FLAP", from: c3, to: c3, at: new Date(now - 3 * HOUR) });
  await createChange(db, clusterId, p1, { kind: "CONSUMERS_CHANGED", from: c3, to: c3, at: new Date(now - 4 * HOUR), details: { added: [c1] } });
  // A rollout of the consumers' service, and one of an unrelated service.
  await db.deployment.createMany({
    data: [
      { service, version: "2.0.0", startedAt: new Date(now - 2 * HOUR - 60_000), finishedAt: new Date(now - 2 * HOUR + 60_000) },
      { service: `unrelated-${RUN}`, version: "9", startedAt: new Date(now - 2 * HOUR), finishedAt: new Date(now - HOUR) },
    ],
  });
});

afterAll(async () => {
  await db.cluster.deleteMany({ where: { name: CLUSTER } });
  await db.deployment.deleteMany({ where: { service: { in: [service, `unrelated-${RUN}`] } } });
  await db.$disconnect();
});

describe("GET /api/v1/subscriptions/timeline", () => {
  it("gives one lane per partition with a bar per tenure, markers, the deployment of the consumers' service, and the legend", async () => {
    const { status, body } = await timeline({ from: String(now - 6 * HOUR), to: String(now) });
    expect(status).toBe(200);
    const result = body as unknown as SubscriptionTimeline;
    expect(result.subscription).toMatchObject({ subscription, holders: [c2, c3], idleConsumers: [c1] });
    expect(result.partitions.map((p) => [p.partition, p.consumers.map((c) => c.name)])).toEqual([
      [0, [c1, c2, c3]],
      [1, [c1, c2, c3]],
    ]);
    const [lane0, lane1] = result.timeline.lanes;
    expect(lane0!.segments.filter((s) => s.kind === "held").map((s) => s.holder)).toEqual([c1, c2]);
    expect(lane1!.segments.filter((s) => s.kind === "held").map((s) => s.holder)).toEqual([c3, c3]);
    expect(result.timeline.markers.map((m) => m.kind).sort()).toEqual(["CONSUMERS_CHANGED", "HIDDEN_FLAP", "HOLDER_CHANGED"]);
    expect(result.timeline.bands).toEqual([expect.objectContaining({ service, version: "2.0.0", isInProgress: false })]);
    expect(result.unmatchedDeploymentCount).toBeGreaterThanOrEqual(1);
    expect(result.timeline.consumers).toEqual([c1, c2, c3]);
  });

  it("knows who held it at the end of a past range from the first change after it", async () => {
    const { body } = await timeline({ from: new Date(now - 5 * HOUR).toISOString(), to: new Date(now - 2.5 * HOUR).toISOString() });
    const lane0 = (body as unknown as SubscriptionTimeline).timeline.lanes[0]!;
    expect(lane0.segments.map((s) => [s.kind, s.holder])).toEqual([["held", c1]]);
  });

  it("shows every deployment in range when asked", async () => {
    const { body } = await timeline({ deployments: "all" });
    expect((body as unknown as SubscriptionTimeline).timeline.bands.map((b) => b.service)).toContain(`unrelated-${RUN}`);
  });

  it("answers 404 for a subscription Baton has not seen", async () => {
    const { status, body } = await timeline({ subscription: "nobody" });
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: "not_found", message: expect.stringContaining("nobody") });
  });
});

describe("GET /api/v1/subscriptions/changes", () => {
  it("lists the changes with exact times, newest first, a page at a time", async () => {
    const first = await changes({ limit: "2" });
    expect(first.status).toBe(200);
    const page = first.body as unknown as ChangePage;
    expect(page.total).toBe(3);
    expect(page.changes.map((c) => [c.kind, c.partition, c.fromHolder, c.toHolder])).toEqual([
      ["HOLDER_CHANGED", 0, c1, c2],
      ["HIDDEN_FLAP", 1, c3, c3],
    ]);
    expect(page.changes[0]).toMatchObject({
      newSeenAt: new Date(now - 2 * HOUR).toISOString(),
      oldSeenAt: new Date(now - 2 * HOUR - 5_000).toISOString(),
      cause: "CLIENT",
      details: { removed: ["gone-1"] },
    });
    expect(page.nextCursor).toMatch(/^\d+_\d+$/);
    const second = (await changes({ limit: "2", cursor: page.nextCursor! })).body as unknown as ChangePage;
    expect(second.changes.map((c) => c.kind)).toEqual(["CONSUMERS_CHANGED"]);
    expect(second).toMatchObject({ total: 3, nextCursor: null });
  });

  it("narrows to the range", async () => {
    const { body } = await changes({ from: new Date(now - 2.5 * HOUR).toISOString() });
    expect((body as unknown as ChangePage).changes.map((c) => c.kind)).toEqual(["HOLDER_CHANGED"]);
  });
});

describe("subscription API errors", () => {
  const cases: [string, Record<string, string>, string[], string, string][] = [
    ["no cluster", {}, ["cluster"], "cluster", "is required"],
    ["no topic", {}, ["topic"], "topic", "is required"],
    ["no subscription", {}, ["subscription"], "subscription", "is required"],
    ["a topic that is not a full name", { topic: "events" }, [], "topic", "must be a full topic name"],
    ["a cluster nobody configured", { cluster: "nowhere" }, [], "cluster", "names no configured cluster"],
    ["a from that is no time", { from: "yesterday" }, [], "from", "RFC 3339"],
    ["a time without a zone", { from: "2026-11-22T10:00:00" }, [], "from", "RFC 3339"],
    ["from after to", { from: String(now), to: String(now - HOUR) }, [], "from", "must be before to"],
    ["a range over 31 days", { from: String(now - 40 * 86_400_000), to: String(now) }, [], "from", "at most 31 days"],
    ["an unknown parameter", { range: "7d" }, [], "range", "is not a known parameter"],
  ];

  it.each(cases)("timeline: refuses %s with a 400 naming the parameter", async (_name, extra, without, field, message) => {
    const { status, body } = await timeline(extra, without);
    expect(status).toBe(400);
    expect(body.error!.details!.issues[0]).toMatchObject({ field, message: expect.stringContaining(message) });
  });

  it.each<[string, Record<string, string>, string[], string, string]>([
    ...cases,
    ["a limit of 0", { limit: "0" }, [], "limit", "at least 1"],
    ["a limit over 1000", { limit: "1001" }, [], "limit", "at most 1000"],
    ["a limit that is no number", { limit: "many" }, [], "limit", "must be a number"],
    ["a made-up cursor", { cursor: "abc" }, [], "cursor", "nextCursor"],
    ["deployments (a timeline parameter)", { deployments: "all" }, [], "deployments", "is not a known parameter"],
  ])("changes: refuses %s with a 400 naming the parameter", async (_name, extra, without, field, message) => {
    const { status, body } = await changes(extra, without);
    expect(status).toBe(400);
    expect(body.error!.message).toContain(field);
    expect(body.error!.details!.issues[0]).toMatchObject({ field, message: expect.stringContaining(message) });
  });
});
