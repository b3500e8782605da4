import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/api/v1/alerts/route";
import type { AlertList } from "@/lib/alerts/list-alerts";
import type { Db } from "@/lib/db/client";
import { createTestDb } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// GET /api/v1/alerts in-process against the test database: seeded incidents, filters, order,
// history, and every bad parameter a 400 naming it.

process.env.DATABASE_URL = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const cluster = `alerts-route-${run}`;
const db: Db = createTestDb(getTestDatabaseUrl());
const now = Date.now();
const MINUTE = 60_000;

async function get(
  params: Record<string, string>,
): Promise<{ status: number; body: AlertList & { error?: { code: string; message: string; details: { issues: { field: string }[] } } } }> {
  const response = await GET(new Request(`http://127.0.0.1/api/v1/alerts?${new URLSearchParams(params)}`), {});
  return { status: response.status, body: await response.json() };
}

async function seed(rule: string, state: string, activeAgoMin: number, resolvedAgoMin: number | null, extra: Record<string, string> = {}) {
  const activeAt = new Date(now - activeAgoMin * MINUTE);
  const firedAt = state === "pending" ? null : new Date(activeAt.getTime() + MINUTE);
  const resolvedAt = resolvedAgoMin === null ? null : new Date(now - resolvedAgoMin * MINUTE);
  const labels = { alertname: rule, cluster, ...extra };
  const history = [
    { fromState: null, toState: "pending", at: activeAt },
    ...(firedAt ? [{ fromState: "pending", toState: "firing", at: firedAt }] : []),
    ...(resolvedAt ? [{ fromState: "firing", toState: "resolved", at: resolvedAt }] : []),
  ];
  await db.alert.create({
    data: {
      fingerprint: `${rule}-${run}-${activeAgoMin}`,
      rule,
      labels,
      severity: "critical",
      summary: `${rule} ${activeAgoMin}`,
      description: "d",
      link: "http://baton/x",
      state,
      activeAt,
      firedAt,
      resolvedAt,
      transitions: { create: history },
    },
    select: { id: true },
  });
}

beforeAll(async () => {
  await seed("no-holder", "resolved", 120, 100, { subscription: "billing" });
  await seed("no-holder", "firing", 30, null, { subscription: "billing" });
  await seed("stuck", "pending", 1, null, { resource: "lock:x" });
  await seed("stale", "resolved", 20, 10);
  await seed("violations", "firing", 5, null, { service: `orders-${run}` });
});

afterAll(async () => {
  await db.alert.deleteMany({ where: { labels: { path: ["cluster"], equals: cluster } } });
  await db.$disconnect();
});

describe("GET /api/v1/alerts", () => {
  it("lists firing, then pending, then resolved alerts, each newest first, with their history", async () => {
    const { status, body } = await get({ cluster });
    expect(status).toBe(200);
    expect(body.alerts.map((a) => `${a.state} ${a.summary}`)).toEqual([
      "firing violations 5",
      "firing no-holder 30",
      "pending stuck 1",
      "resolved stale 20",
      "resolved no-holder 120",
    ]);
    const resolved = body.alerts.at(-1)!;
    expect(resolved.history.map((h) => h.state)).toEqual(["pending", "firing", "resolved"]);
    expect(resolved).toMatchObject({ rule: "no-holder", labels: { alertname: "no-holder", cluster, subscription: "billing" }, link: "http://baton/x" });
  });

  it("filters by state, rule, service, range and limit", async () => {
    expect((await get({ cluster, state: "resolved" })).body.alerts).toHaveLength(2);
    expect((await get({ cluster, rule: "no-holder" })).body.alerts.map((a) => a.state)).toEqual(["firing", "resolved"]);
    expect((await get({ service: `orders-${run}` })).body.alerts.map((a) => a.rule)).toEqual(["violations"]);
    expect((await get({ cluster, subscription: "billing" })).body.alerts.map((a) => a.state)).toEqual(["firing", "resolved"]);
    expect((await get({ cluster, resource: "lock:x" })).body.alerts.map((a) => a.rule)).toEqual(["stuck"]);
    // Active within the last 15 minutes: the open ones and the stale alert resolved 10 minutes ago.
    const recent = await get({ cluster, from: new Date(now - 15 * MINUTE).toISOString(), to: String(now) });
    expect(recent.body.alerts.map((a) => a.rule)).toEqual(["violations", "no-holder", "stuck", "stale"]);
    expect((await get({ cluster, limit: "2" })).body.alerts).toHaveLength(2);
  });

  it.each([
    [{ state: "open" }, "state"],
    [{ rule: "no-leader" }, "rule"],
    [{ limit: "0" }, "limit"],
    [{ limit: "501" }, "limit"],
    [{ from: "yesterday" }, "from"],
    [{ from: "2000", to: "1000" }, "to"],
    [{ cluster: "" }, "cluster"],
    [{ colour: "red" }, null],
  ])("answers 400 invalid_request naming the parameter for %j", async (params, field) => {
    const { status, body } = await get(params as Record<string, string>);
    expect(status).toBe(400);
    expect(body.error!.code).toBe("invalid_request");
    if (field) expect(body.error!.details.issues[0]!.field).toBe(field);
    else expect(body.error!.message).toContain("colour");
  });
});
