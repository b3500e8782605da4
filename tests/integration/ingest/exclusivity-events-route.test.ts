import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import { revokeApiToken } from "@/lib/auth/revoke-api-token";
import { compactId, idText } from "@/lib/ingest/compact-id";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import { ingestEvents } from "@/lib/ingest/ingest-events";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { findFreePort } from "@/tools/free-port";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { countEvents, createTestToken, eventsRequest, makeEvent, openDb, rollupTotals, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "events-route");
});
afterAll(async () => {
  await db.$disconnect();
});

async function post(request: Request): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await POST(request, {});
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe("POST /api/v1/exclusivity-events", () => {
  it("writes a JSON array, answers counts and maintains the per-minute rollup", async () => {
    const service = uniquePrefix("svc");
    // A whole minute two days ago: inside the retention, and the rollup's buckets are exact.
    const minute = Math.floor((Date.now() - 2 * 86_400_000) / 60_000) * 60_000;
    const events = [
      makeEvent(service, `${service}-1`, { observedAt: new Date(minute + 5_000).toISOString(), attributes: { region: "eu", tries: 2 } }),
      makeEvent(service, `${service}-2`, { observedAt: minute + 20_000, counter: 1 }),
      makeEvent(service, `${service}-3`, { observedAt: minute + 61_000, counter: 2, subscription: null, topic: null, partition: null, traceId: null }),
    ];
    const { status, body } = await post(eventsRequest(JSON.stringify(events), { token }));
    expect(status).toBe(200);
    expect(body).toEqual({ accepted: 3, duplicates: 0, rejected: 0, errors: [] });

    const row = await db.exclusivityEvent.findFirstOrThrow({ where: { eventId: compactId(`${service}-1`) } });
    expect(row).toMatchObject({
      key: events[0]!.key,
      counter: 0,
      service,
      worker: "worker-1",
      topic: "persistent://acme/orders/events",
      subscription: "orders-sub",
      partition: 1,
      source: "HTTP",
      attributes: { region: "eu", tries: 2 },
    });
    expect(idText(row.traceId!)).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(row.observedAt.toISOString()).toBe(new Date(minute + 5_000).toISOString());
    const third = await db.exclusivityEvent.findFirstOrThrow({ where: { eventId: compactId(`${service}-3`) } });
    expect(third).toMatchObject({ topic: null, subscription: null, partition: null, traceId: null, attributes: null });

    const rollup = await db.violationMinute.findMany({
      where: { service },
      orderBy: { bucket: "asc" },
      select: { bucket: true, subscription: true, events: true, violations: true },
    });
    expect(rollup).toEqual([
      { bucket: new Date(minute), subscription: "orders-sub", events: 2, violations: 1 },
      { bucket: new Date(minute + 60_000), subscription: "", events: 1, violations: 1 },
    ]);
  });

  it("stores text exactly, whatever characters it holds", async () => {
    const service = uniquePrefix("svc");
    const awkward = ['quote " inside', "back\\slash", "comma, {braces}", "NULL", " padded ", "tab\tnewline\n", "ümlaut \u{1F600}", '\\"\\'];
    const events = awkward.map((text, i) =>
      makeEvent(service, `${service}-${i}-${text}`, { key: text, worker: text, topic: text, traceId: text, attributes: { text } }),
    );
    expect((await post(eventsRequest(JSON.stringify(events), { token }))).body).toMatchObject({ accepted: awkward.length, rejected: 0 });
    const stored = await db.exclusivityEvent.findMany({
      where: { service },
      select: { eventId: true, key: true, worker: true, topic: true, traceId: true, attributes: true },
    });
    const rows = stored.map((row) => ({ ...row, eventId: idText(row.eventId), traceId: row.traceId && idText(row.traceId) }));
    for (const [i, text] of awkward.entries()) {
      expect(rows.find((r) => r.eventId === `${service}-${i}-${text}`)).toEqual({
        eventId: `${service}-${i}-${text}`,
        key: text,
        worker: text,
        topic: text,
        traceId: text,
        attributes: { text },
      });
    }
  });

  it("accepts NDJSON and a single object", async () => {
    const service = uniquePrefix("svc");
    const ndjson = [makeEvent(service, `${service}-a`), makeEvent(service, `${service}-b`)].map((e) => JSON.stringify(e)).join("\n");
    expect((await post(eventsRequest(`${ndjson}\n`, { token, contentType: "application/x-ndjson" }))).body).toMatchObject({ accepted: 2 });
    expect(
      (await post(eventsRequest(JSON.stringify(makeEvent(service, `${service}-c`)), { token, contentType: "application/json; charset=utf-8" }))).body,
    ).toMatchObject({ accepted: 1 });
    expect(await countEvents(db, service)).toBe(3);
  });

  it("writes nothing new when the same ids are sent again, and does not count them twice", async () => {
    const service = uniquePrefix("svc");
    const events = Array.from({ length: 50 }, (_, i) => makeEvent(service, `${service}-${i}`, { counter: i % 5 === 0 ? 1 : 0 }));
    expect((await post(eventsRequest(JSON.stringify(events), { token }))).body).toMatchObject({ accepted: 50, duplicates: 0 });
    const before = await rollupTotals(db, service);
    const again = [...events, events[0]!, makeEvent(service, `${service}-new`)];
    expect((await post(eventsRequest(JSON.stringify(again), { token }))).body).toEqual({ accepted: 1, duplicates: 51, rejected: 0, errors: [] });
    expect(await countEvents(db, service)).toBe(51);
    expect(await rollupTotals(db, service)).toEqual({ events: before.events + 1, violations: before.violations });
    expect(before).toEqual({ events: 50, violations: 10 });
  });

  it("writes the valid items of a mixed batch and names the index and field of each rejected one", async () => {
    const service = uniquePrefix("svc");
    const items = [
      makeEvent(service, `${service}-ok-1`),
      makeEvent(service, `${service}-bad-1`, { counter: "1" }),
      "not an event",
      makeEvent(service, `${service}-bad-2`, { observedAt: "2026-02-30T00:00:00Z" }),
      makeEvent(service, `${service}-ok-2`),
      makeEvent(service, `${service}-bad-3`, { attributes: { nul: "\u0000" } }),
    ];
    const { status, body } = await post(eventsRequest(JSON.stringify(items), { token }));
    expect(status).toBe(200);
    expect(body).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: 4,
      errors: [
        { index: 1, field: "counter", message: "must be a number" },
        { index: 2, field: null, message: "must be a JSON object" },
        { index: 3, field: "observedAt", message: expect.stringMatching(/RFC 3339/) },
        { index: 5, field: "attributes", message: expect.stringMatching(/NUL/) },
      ],
    });
    const written = await db.exclusivityEvent.findMany({ where: { service }, select: { eventId: true }, orderBy: { eventId: "asc" } });
    expect(written.map((r) => idText(r.eventId))).toEqual([`${service}-ok-1`, `${service}-ok-2`]);
  });

  it("answers 200 with every item rejected, and 200 with zeros for an empty array", async () => {
    expect(await post(eventsRequest(JSON.stringify([{}, []]), { token }))).toMatchObject({ status: 200, body: { accepted: 0, duplicates: 0, rejected: 2 } });
    expect(await post(eventsRequest("[]", { token }))).toMatchObject({ status: 200, body: { accepted: 0, duplicates: 0, rejected: 0, errors: [] } });
  });

  describe("refuses requests that are not events, writing nothing", () => {
    const service = uniquePrefix("svc");
    const valid = JSON.stringify([makeEvent(service, `${service}-x`)]);
    it.each([
      ["no Content-Type", () => eventsRequest(valid, { token, contentType: null }), 415, "unsupported_media_type"],
      ["text/plain", () => eventsRequest(valid, { token, contentType: "text/plain" }), 415, "unsupported_media_type"],
      ["a latin1 charset", () => eventsRequest(valid, { token, contentType: "application/json; charset=iso-8859-1" }), 415, "unsupported_media_type"],
      ["a gzip body", () => eventsRequest(valid, { token, headers: { "content-encoding": "gzip" } }), 415, "unsupported_content_encoding"],
      ["invalid JSON", () => eventsRequest(`${valid.slice(0, -1)}`, { token }), 400, "invalid_json"],
      ["a JSON number", () => eventsRequest("12", { token }), 400, "invalid_json"],
      [
        "bad NDJSON",
        () => eventsRequest(`${JSON.stringify(makeEvent(service, `${service}-y`))}\n{oops`, { token, contentType: "application/x-ndjson" }),
        400,
        "invalid_ndjson",
      ],
      [
        "bad UTF-8",
        () => eventsRequest(Buffer.concat([Buffer.from(valid.slice(0, -2)), Buffer.from([0xc3, 0x28]), Buffer.from("}]")]), { token }),
        400,
        "invalid_encoding",
      ],
      [
        "a declared body over 16 MiB",
        () => eventsRequest(valid, { token, headers: { "content-length": String(16 * 1024 * 1024 + 1) } }),
        413,
        "payload_too_large",
      ],
      ["a streamed body over 16 MiB", () => eventsRequest(oversizedStream(valid), { token }), 413, "payload_too_large"],
      ["more than 10,000 events", () => eventsRequest(`[${new Array(10_001).fill(valid.slice(1, -1)).join(",")}]`, { token }), 413, "too_many_events"],
    ])("%s", async (_label, makeRequest, status, code) => {
      const answer = await post(makeRequest());
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ error: { code, message: expect.any(String) } });
      expect(await countEvents(db, service)).toBe(0);
    });
  });

  it("line numbers in NDJSON errors count blank lines", async () => {
    const answer = await post(eventsRequest('{"id":"x"}\n\n\n[', { token, contentType: "application/x-ndjson" }));
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "invalid_ndjson", details: { line: 4 } } } });
  });
});

/** 16 MiB of a valid-looking body and then more, in 1 MiB chunks, without Content-Length. */
function oversizedStream(prefix: string): ReadableStream<Uint8Array> {
  let chunks = 0;
  return new ReadableStream({
    pull(controller) {
      if (chunks++ === 0) controller.enqueue(new TextEncoder().encode(prefix.slice(0, -1)));
      else if (chunks > 20) controller.close();
      else controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
    },
  });
}

describe("authentication", () => {
  it.each([
    ["no Authorization header", () => ({}), "missing_token", 'Bearer realm="baton"'],
    [
      "another scheme",
      () => ({ authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }),
      "invalid_token",
      'Bearer realm="baton", error="invalid_request"',
    ],
    ["an empty bearer", () => ({ authorization: "Bearer " }), "invalid_token", 'Bearer realm="baton", error="invalid_request"'],
    ["a malformed token", () => ({ authorization: "Bearer let-me-in" }), "invalid_token", 'Bearer realm="baton", error="invalid_token"'],
    ["an unknown token", () => ({ authorization: `Bearer bat_${"A".repeat(43)}` }), "invalid_token", 'Bearer realm="baton", error="invalid_token"'],
  ])("answers 401 for %s and writes nothing", async (_label, headers, code, challenge) => {
    const service = uniquePrefix("svc");
    const answer = await post(eventsRequest(JSON.stringify([makeEvent(service, `${service}-1`)]), { headers: headers() }));
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(challenge);
    expect(answer.body).toMatchObject({ error: { code } });
    expect(await countEvents(db, service)).toBe(0);
  });

  it("answers 401 once a token is revoked, and records when a token was last used", async () => {
    const name = uniquePrefix("revoked");
    const { createApiToken } = await import("@/lib/auth/create-api-token");
    const created = await createApiToken(db, name);
    const service = uniquePrefix("svc");
    expect((await post(eventsRequest(JSON.stringify([makeEvent(service, `${service}-1`)]), { token: created.token }))).status).toBe(200);
    const used = await db.apiToken.findUniqueOrThrow({ where: { name }, select: { lastUsedAt: true } });
    expect(used.lastUsedAt).not.toBeNull();

    await revokeApiToken(db, name);
    const answer = await post(eventsRequest(JSON.stringify([makeEvent(service, `${service}-2`)]), { token: created.token }));
    expect(answer).toMatchObject({ status: 401, body: { error: { code: "invalid_token" } } });
    expect(await countEvents(db, service)).toBe(1);
  });

  it("checks the token before reading the body: an unauthenticated huge body is not read", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    expect((await post(eventsRequest(endless, {}))).status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(1);
  });
});

describe("all or nothing", () => {
  const admin = new pg.Client({ connectionString: getTestDatabaseUrl() });
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());

  /** A trigger that fails the INSERT when it meets one row: a database failure mid-batch. */
  /** Makes inserts into the table fail on the row whose `expression` (SQL over the row `new`) equals value. */
  async function failOn(table: "exclusivity_event" | "violation_minute", expression: string, value: string): Promise<() => Promise<void>> {
    const name = `fail_${Math.random().toString(36).slice(2, 10)}`;
    // DDL takes no bind parameters: the names are generated above and the value is quoted.
    await admin.query(`create function ${name}() returns trigger language plpgsql as $$ begin
      if ${expression} = ${pg.escapeLiteral(value)} then raise exception 'injected failure on %', ${expression}; end if; return new; end $$`);
    await admin.query(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`);
    return async () => {
      await admin.query(`drop trigger ${name} on ${table}`);
      await admin.query(`drop function ${name}()`);
    };
  }

  it("writes none of a 1,000-event batch when an event row fails mid-way, answers 503 with Retry-After, and a retry succeeds", async () => {
    const service = uniquePrefix("svc");
    const events = Array.from({ length: 1_000 }, (_, i) => makeEvent(service, `${service}-${String(i).padStart(4, "0")}`, { counter: i % 10 === 0 ? 1 : 0 }));
    const poison = `${service}-0500`;
    const restore = await failOn("exclusivity_event", "baton_id_text(new.event_id)", poison);
    try {
      const answer = await post(eventsRequest(JSON.stringify(events), { token }));
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("2");
      expect(answer.body).toMatchObject({ error: { code: "database_unavailable", message: expect.stringMatching(/nothing from this request was written/) } });
      expect(await countEvents(db, service)).toBe(0);
      expect(await rollupTotals(db, service)).toEqual({ events: 0, violations: 0 });
    } finally {
      await restore();
    }
    expect((await post(eventsRequest(JSON.stringify(events), { token }))).body).toMatchObject({ accepted: 1_000, duplicates: 0 });
    expect(await rollupTotals(db, service)).toEqual({ events: 1_000, violations: 100 });
  });

  it("writes no event when the rollup fails", async () => {
    const service = uniquePrefix("svc");
    const events = Array.from({ length: 100 }, (_, i) => makeEvent(service, `${service}-${i}`));
    const restore = await failOn("violation_minute", "new.service", service);
    try {
      expect((await post(eventsRequest(JSON.stringify(events), { token }))).status).toBe(503);
      expect(await countEvents(db, service)).toBe(0);
    } finally {
      await restore();
    }
  });

  it("throws DatabaseUnavailableError, writing nothing, when the database cannot be reached", async () => {
    const dead = createIngestPool(`postgresql://baton:baton@127.0.0.1:${await findFreePort()}/baton`);
    try {
      const service = uniquePrefix("svc");
      const failure = await ingestEvents(dead, [makeEvent(service, `${service}-1`)], "PULSAR_TOPIC", { retentionDays: 30 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect(failure).toMatchObject({ status: 503, headers: { "Retry-After": "2" } });
    } finally {
      await dead.end();
    }
  });
});

describe("ingestEvents (the core the topic consumer shares)", () => {
  it("records the source and answers like the HTTP API", async () => {
    const { getIngestPool } = await import("@/lib/ingest/ingest-pool");
    const service = uniquePrefix("svc");
    const result = await ingestEvents(
      getIngestPool(),
      [makeEvent(service, `${service}-1`), { nope: true }, makeEvent(service, `${service}-1`)],
      "PULSAR_TOPIC",
      { retentionDays: 30 },
    );
    expect(result).toEqual({ accepted: 1, duplicates: 1, rejected: [{ index: 1, field: "nope", message: expect.stringMatching(/not a known field/) }] });
    expect(await db.exclusivityEvent.findFirstOrThrow({ where: { eventId: compactId(`${service}-1`) }, select: { source: true } })).toEqual({
      source: "PULSAR_TOPIC",
    });
  });
});
