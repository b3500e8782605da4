import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-counts/route";
import { createTestToken, openDb, rollupTotals, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

const COUNTS_URL = "http://127.0.0.1/api/v1/exclusivity-counts";
const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "counts-route");
});
afterAll(async () => {
  await db.$disconnect();
});

/** The start of the minute `minutesAgo` before now. */
function minuteAgo(minutesAgo: number): number {
  return Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000;
}

function countsBody(service: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clientId: randomUUID(),
    service,
    worker: "pod-a",
    mode: "violations+counts",
    minute: new Date(minuteAgo(5)).toISOString(),
    counts: [
      { subscription: "orders-sub", topic: "persistent://acme/orders/events", increments: 400 },
      { subscription: "orders-sub", topic: "persistent://acme/orders/retry", increments: 20 },
      { increments: 3 },
    ],
    ...overrides,
  };
}

async function post(body: unknown, options: { token?: string | null; contentType?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { "content-type": options.contentType ?? "application/json" };
  const bearer = options.token === undefined ? token : options.token;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const response = await POST(new Request(COUNTS_URL, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) }), {});
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function storedCounts(service: string) {
  return db.exclusivityCount.findMany({
    where: { service },
    orderBy: [{ subscription: "asc" }, { topic: "asc" }],
    select: { subscription: true, topic: true, increments: true, worker: true, minute: true },
  });
}

describe("POST /api/v1/exclusivity-counts", () => {
  it("stores one row per group and adds the increments to the per-minute rollup", async () => {
    const service = uniquePrefix("svc");
    const body = countsBody(service);
    expect(await post(body)).toEqual({ status: 200, body: { accepted: 3, duplicates: 0 } });
    const minute = new Date(body.minute as string);
    expect(await storedCounts(service)).toEqual([
      { subscription: "", topic: "", increments: 3, worker: "pod-a", minute },
      { subscription: "orders-sub", topic: "persistent://acme/orders/events", increments: 400, worker: "pod-a", minute },
      { subscription: "orders-sub", topic: "persistent://acme/orders/retry", increments: 20, worker: "pod-a", minute },
    ]);
    const rollup = await db.violationMinute.findMany({
      where: { service },
      orderBy: { subscription: "asc" },
      select: { bucket: true, subscription: true, events: true, violations: true },
    });
    expect(rollup).toEqual([
      { bucket: minute, subscription: "", events: 3, violations: 0 },
      { bucket: minute, subscription: "orders-sub", events: 420, violations: 0 },
    ]);
  });

  it("writes nothing new for a re-sent minute and counts nothing twice; another client's same minute adds up", async () => {
    const service = uniquePrefix("svc");
    const body = countsBody(service);
    await post(body);
    expect(await post(body)).toEqual({ status: 200, body: { accepted: 0, duplicates: 3 } });
    // The same re-send arriving twice at once: one of them wins, neither counts twice.
    const again = await Promise.all([post(body), post(body)]);
    expect(again.map((a) => a.body)).toEqual([
      { accepted: 0, duplicates: 3 },
      { accepted: 0, duplicates: 3 },
    ]);
    expect(await rollupTotals(db, service)).toEqual({ events: 423, violations: 0 });
    // A restarted client (new clientId) counting in the same minute is new data.
    expect(await post({ ...body, clientId: randomUUID(), counts: [{ increments: 7 }] })).toEqual({ status: 200, body: { accepted: 1, duplicates: 0 } });
    expect(await rollupTotals(db, service)).toEqual({ events: 430, violations: 0 });
    expect(await db.exclusivityCount.count({ where: { service } })).toBe(4);
  });

  it("accepts epoch milliseconds, null subscription and topic, zero increments, and the oldest minute of the retention", async () => {
    const service = uniquePrefix("svc");
    const oldest = minuteAgo(29 * 24 * 60);
    expect(await post(countsBody(service, { minute: oldest, counts: [{ subscription: null, topic: null, increments: 0 }] }))).toEqual({
      status: 200,
      body: { accepted: 1, duplicates: 0 },
    });
    expect(await storedCounts(service)).toEqual([{ subscription: "", topic: "", increments: 0, worker: "pod-a", minute: new Date(oldest) }]);
  });

  const tooManyGroups = Array.from({ length: 1_001 }, (_, i) => ({ subscription: `s${i}`, increments: 1 }));
  // Every way a body can be wrong: 400 naming the field, nothing written.
  it.each([
    ["a negative count", { counts: [{ increments: -1 }] }, "counts.0.increments", /0 or more/],
    ["a fractional count", { counts: [{ increments: 1.5 }] }, "counts.0.increments", /integer/],
    ["a count as a string", { counts: [{ increments: "5" }] }, "counts.0.increments", /must be a number/],
    ["a count too large", { counts: [{ increments: 100_000_001 }] }, "counts.0.increments", /at most 100000000/],
    [
      "counts too large in all",
      {
        counts: [
          { subscription: "a", increments: 60_000_000 },
          { subscription: "b", increments: 60_000_000 },
        ],
      },
      "counts",
      /at most 100000000 increments in all/,
    ],
    ["a count missing", { counts: [{ subscription: "a" }] }, "counts.0.increments", /must be a number|is required/],
    ["a minute far in the future", { minute: new Date(minuteAgo(-3 * 24 * 60)).toISOString() }, "minute", /future/],
    ["a minute older than the retention", { minute: new Date(minuteAgo(31 * 24 * 60)).toISOString() }, "minute", /older than the 30-day retention/],
    ["a minute not on a minute", { minute: new Date(minuteAgo(5) + 1_500).toISOString() }, "minute", /start of a minute/],
    ["a minute in seconds", { minute: Math.floor(minuteAgo(5) / 1000) }, "minute", /seconds/],
    ["a minute missing", { minute: undefined }, "minute", /required|RFC 3339/],
    ["an unknown mode", { mode: "all" }, "mode", /must be one of "violations\+counts"/],
    ["no mode", { mode: undefined }, "mode", /is required|must be one of/],
    ["an unknown field", { region: "eu" }, "region", /not a known field/],
    ["an unknown field in a group", { counts: [{ increments: 1, partition: 3 }] }, "counts.0.partition", /not a known field/],
    [
      "a group repeated",
      {
        counts: [
          { subscription: "a", increments: 1 },
          { subscription: "a", increments: 2 },
        ],
      },
      "counts.1",
      /repeats the subscription and topic of counts.0/,
    ],
    ["no groups", { counts: [] }, "counts", /at least one/],
    ["too many groups", { counts: tooManyGroups }, "counts", /at most 1000 groups/],
    ["counts not an array", { counts: { increments: 1 } }, "counts", /must be an array/],
    ["clientId missing", { clientId: undefined }, "clientId", /is required/],
    ["clientId empty", { clientId: "" }, "clientId", /must not be empty/],
    ["service too long", { service: "s".repeat(201) }, "service", /at most 200/],
    ["worker with NUL", { worker: "a\u0000b" }, "worker", /NUL/],
    ["a subscription with NUL", { counts: [{ subscription: "a\u0000", increments: 1 }] }, "counts.0.subscription", /NUL/],
  ])("answers 400 for %s, naming the field, and writes nothing", async (_label, overrides, field, message) => {
    const service = uniquePrefix("svc");
    const { status, body } = await post(countsBody(service, overrides));
    expect(status).toBe(400);
    const error = body.error as { code: string; message: string; details: { issues: { field: string | null; message: string }[] } };
    expect(error.code).toBe("invalid_request");
    expect(error.details.issues[0]!.field).toBe(field);
    expect(error.details.issues[0]!.message).toMatch(message);
    expect(error.message).toContain(field);
    expect(await db.exclusivityCount.count({ where: { service } })).toBe(0);
    expect(await rollupTotals(db, service)).toEqual({ events: 0, violations: 0 });
  });

  it.each([
    ["no token", { token: null }, 401, "missing_token"],
    ["an unknown token", { token: "bat_unknown" }, 401, "invalid_token"],
    ["a body that is not JSON", { body: "{" }, 400, "invalid_json"],
    ["a body that is an array", { body: "[]" }, 400, "invalid_request"],
    ["another content type", { contentType: "text/plain" }, 415, "unsupported_media_type"],
  ])(
    "answers %s with its status and code, writing nothing",
    async (_label, options: { token?: string | null; body?: string; contentType?: string }, status, code) => {
      const service = uniquePrefix("svc");
      const answer = await post(options.body ?? countsBody(service), options);
      expect(answer.status).toBe(status);
      expect((answer.body.error as { code: string }).code).toBe(code);
      expect(await db.exclusivityCount.count({ where: { service } })).toBe(0);
    },
  );
});
