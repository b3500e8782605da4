import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getOne, PATCH } from "@/app/api/v1/deployments/[id]/route";
import { POST as finish } from "@/app/api/v1/deployments/[id]/finish/route";
import { GET as list, POST as create } from "@/app/api/v1/deployments/route";
import { createTestToken, openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

const BASE = "http://127.0.0.1/api/v1/deployments";
const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "deployments");
});
afterAll(() => db.$disconnect());

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string; details?: unknown } } };

function request(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Request {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${token}`, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return new Request(url, init);
}

async function answer(response: Promise<Response>): Promise<Answer> {
  const res = await response;
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const context = (id: string) => ({ params: Promise.resolve({ id }) });
const post = (body: unknown, headers?: Record<string, string>) => answer(create(request(BASE, "POST", body, headers), {}));
const patch = (id: string, body: unknown) => answer(PATCH(request(`${BASE}/${encodeURIComponent(id)}`, "PATCH", body), context(id)));
const finishIt = (id: string, body?: unknown) => answer(finish(request(`${BASE}/${encodeURIComponent(id)}/finish`, "POST", body), context(id)));

describe("deployments API", () => {
  it("creates a deployment (201) with defaults, and reads it back by Baton id", async () => {
    const service = uniquePrefix("svc");
    const created = await post({ service, version: "1.4.2" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      externalId: null,
      service,
      version: "1.4.2",
      environment: "production",
      finishedAt: null,
      link: null,
      description: null,
      attributes: null,
    });
    expect(Date.now() - Date.parse(created.body.startedAt as string)).toBeLessThan(60_000);
    const read = await answer(getOne(new Request(`${BASE}/${created.body.id}`), context(created.body.id as string)));
    expect(read).toEqual({ status: 200, body: created.body });
  });

  it("is idempotent on the client id: a re-post updates the fields it carries (200)", async () => {
    const service = uniquePrefix("svc");
    const id = uniquePrefix("gh-run");
    const startedAt = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const finishedAt = new Date(Date.parse(startedAt) + 5 * 60_000).toISOString();
    const first = await post({
      id,
      service,
      version: "2.0.0",
      environment: "staging",
      startedAt,
      link: "https://ci.example/runs/1",
      attributes: { tags: ["canary"] },
    });
    expect(first.status).toBe(201);
    const again = await post({ id, service, version: "2.0.0", environment: "staging", finishedAt, description: "done" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      id: first.body.id,
      externalId: id,
      startedAt,
      finishedAt,
      link: "https://ci.example/runs/1",
      description: "done",
      attributes: { tags: ["canary"] },
    });
    expect(await db.deployment.count({ where: { externalId: id } })).toBe(1);
  });

  it("accepts the end of a rollout re-posted now, carrying a finishedAt minutes in the past", async () => {
    // The documented flow: post at the start (no startedAt: now), post the same id at the end.
    const service = uniquePrefix("svc");
    const id = uniquePrefix("rollout");
    const started = await post({ id, service, version: "5.1.0" });
    expect(started.status).toBe(201);
    const finishedAt = new Date(Date.now() - 3 * 60_000).toISOString();
    // The stored start is now; a finish three minutes earlier is refused against it, naming the field.
    const early = await post({ id, service, version: "5.1.0", finishedAt });
    expect(early).toMatchObject({ status: 400, body: { error: { details: { issues: [{ field: "finishedAt" }] } } } });

    const startedAt = new Date(Date.now() - 20 * 60_000).toISOString();
    const recorded = await post({ id: `${id}-b`, service, version: "5.1.0", startedAt });
    expect(recorded.status).toBe(201);
    const ended = await post({ id: `${id}-b`, service, version: "5.1.0", finishedAt });
    expect(ended).toMatchObject({ status: 200, body: { id: recorded.body.id, startedAt, finishedAt } });
  });

  it("checks a re-post's finishedAt against the stored start, not against now", async () => {
    const service = uniquePrefix("svc");
    const id = uniquePrefix("late-start");
    const startedAt = new Date(Date.now() - 60 * 60_000).toISOString();
    await post({ id, service, version: "1", startedAt });
    const beforeStart = new Date(Date.parse(startedAt) - 60_000).toISOString();
    expect(await post({ id, service, version: "1", finishedAt: beforeStart })).toMatchObject({
      status: 400,
      body: { error: { details: { issues: [{ field: "finishedAt" }] } } },
    });
    const stored = await db.deployment.findUniqueOrThrow({ where: { externalId: id }, select: { finishedAt: true } });
    expect(stored.finishedAt).toBeNull();
  });

  it("creates one row when the same id is posted concurrently", async () => {
    const service = uniquePrefix("svc");
    const id = uniquePrefix("race");
    const answers = await Promise.all(Array.from({ length: 5 }, () => post({ id, service, version: "1" })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
  });

  it("answers 409 when a client id is re-posted for another service or version", async () => {
    const id = uniquePrefix("conflict");
    const service = uniquePrefix("svc");
    await post({ id, service, version: "1" });
    const conflict = await post({ id, service, version: "2" });
    expect(conflict).toMatchObject({
      status: 409,
      body: { error: { code: "deployment_conflict", details: { existing: { service, version: "1", environment: "production" } } } },
    });
  });

  it("patches fields, clears with null, and reaches a deployment by its client id", async () => {
    const service = uniquePrefix("svc");
    const id = uniquePrefix("patch-me");
    const created = await post({ id, service, version: "3.1.0", description: "rolling", link: "https://ci.example/runs/2" });
    const patched = await patch(id, { description: "rolled back", link: null, attributes: { reason: "errors" } });
    expect(patched).toMatchObject({ status: 200, body: { id: created.body.id, description: "rolled back", link: null, attributes: { reason: "errors" } } });
    const byBatonId = await patch(created.body.id as string, { version: "3.1.1" });
    expect(byBatonId.body).toMatchObject({ version: "3.1.1", description: "rolled back" });
  });

  it("finishes an open deployment now or at a given time, then answers 409", async () => {
    const service = uniquePrefix("svc");
    const now = await post({ service, version: "1" });
    const finishedNow = await finishIt(now.body.id as string);
    expect(finishedNow.status).toBe(200);
    expect(Date.now() - Date.parse(finishedNow.body.finishedAt as string)).toBeLessThan(60_000);

    const startedAt = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const finishedAt = new Date(Date.now() - 3_600_000).toISOString();
    const given = await post({ service, version: "2", startedAt });
    expect((await finishIt(given.body.id as string, { finishedAt })).body).toMatchObject({ finishedAt });
    expect(await finishIt(given.body.id as string)).toMatchObject({
      status: 409,
      body: { error: { code: "deployment_already_finished", details: { finishedAt } } },
    });
    expect(await finishIt(now.body.id as string, { finishedAt: new Date(Date.now() - 86_400_000).toISOString() })).toMatchObject({ status: 400 });
  });

  it("lists deployments newest first, filtered by service, environment and time", async () => {
    const service = uniquePrefix("svc");
    // Finished rollouts ten days back: an open one would stretch into other files' windows
    // (the drill-down test works a few days in the past).
    const DAY = 86_400_000;
    const base = Math.floor(Date.now() / DAY) * DAY - 10 * DAY + 10 * 3_600_000;
    for (const [version, environment, startMs] of [
      ["1", "production", base],
      ["2", "staging", base + DAY],
      ["3", "production", base + 2 * DAY],
    ] as const) {
      await post({ service, version, environment, startedAt: new Date(startMs).toISOString(), finishedAt: new Date(startMs + 60_000).toISOString() });
    }
    const all = await answer(list(new Request(`${BASE}?service=${service}`), {}));
    expect((all.body.deployments as { version: string }[]).map((d) => d.version)).toEqual(["3", "2", "1"]);
    const from = new Date(base + DAY - 10 * 3_600_000).toISOString();
    const filtered = await answer(
      list(new Request(`${BASE}?service=${service}&environment=production&from=${from}&to=${base + 3 * DAY - 10 * 3_600_000}&limit=5`), {}),
    );
    expect((filtered.body.deployments as { version: string }[]).map((d) => d.version)).toEqual(["3"]);
    const limited = await answer(list(new Request(`${BASE}?service=${service}&limit=2`), {}));
    expect((limited.body.deployments as unknown[]).length).toBe(2);
  });

  describe("errors", () => {
    it.each([
      ["a missing service", () => post({ version: "1" }), 400, "invalid_request"],
      [
        "a finish before the start",
        () => post({ service: "s", version: "1", startedAt: "2026-11-22T10:00:00Z", finishedAt: "2026-11-22T09:00:00Z" }),
        400,
        "invalid_request",
      ],
      ["a link that is not http", () => post({ service: "s", version: "1", link: "ftp://x" }), 400, "invalid_request"],
      ["an unknown field", () => post({ service: "s", version: "1", env: "prod" }), 400, "invalid_request"],
      ["invalid JSON", () => post("{"), 400, "invalid_json"],
      ["a wrong content type", () => post("service=s", { "content-type": "application/x-www-form-urlencoded" }), 415, "unsupported_media_type"],
      ["a body over 64 KiB", () => post({ service: "s", version: "1", description: "x".repeat(70_000) }), 413, "payload_too_large"],
      ["an empty patch", () => patch("1", {}), 400, "invalid_request"],
      ["a patch of an unknown deployment", () => patch(uniquePrefix("nobody"), { version: "2" }), 404, "deployment_not_found"],
      ["finishing an unknown deployment", () => finishIt("999999999999"), 404, "deployment_not_found"],
      ["a bad list query", () => answer(list(new Request(`${BASE}?limit=0`), {})), 400, "invalid_request"],
    ])("%s", async (_label, call, status, code) => {
      const result = await call();
      expect(result).toMatchObject({ status, body: { error: { code, message: expect.any(String) } } });
    });

    it("names the field at fault", async () => {
      const result = await post({ service: "s", version: "1", startedAt: "2026-02-30T00:00:00Z" });
      expect(result.body.error?.details).toEqual({ issues: [{ field: "startedAt", message: expect.stringMatching(/RFC 3339/) }] });
    });

    it("needs a token to write, not to read", async () => {
      const service = uniquePrefix("svc");
      const refused = await answer(
        create(new Request(BASE, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ service, version: "1" }) }), {}),
      );
      expect(refused).toMatchObject({ status: 401, body: { error: { code: "missing_token" } } });
      expect(await db.deployment.count({ where: { service } })).toBe(0);
      const refusedPatch = await answer(
        PATCH(
          new Request(`${BASE}/1`, { method: "PATCH", headers: { authorization: "Bearer nope", "content-type": "application/json" }, body: "{}" }),
          context("1"),
        ),
      );
      expect(refusedPatch.status).toBe(401);
      expect((await answer(list(new Request(BASE), {}))).status).toBe(200);
    });
  });
});
