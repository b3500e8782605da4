import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import { idText } from "@/lib/ingest/compact-id";
import { createTestToken, eventsRequest, type IngestAnswer, makeEvent, openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

// Sends 1,200 random malformed bodies through the real route handler and checks that none gets
// a 5xx, that only the valid items among them are written, and that the server still answers.
// Seeded: a failure names the body number, and the same seed gives the same bodies.

const SEED = 0x5eed_ba70;
const BODIES = 1_200;

/** mulberry32: a small seeded PRNG. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

type Random = ReturnType<typeof createRandom>;

// Deep values are placeholders until serialized: JSON.stringify itself overflows the stack on
// them (the server never stringifies untrusted depth: it checks depth first).
function nested(depth: number, asArray: boolean): string {
  return `__deep_${depth}_${asArray ? "array" : "object"}__`;
}

function serialize(value: unknown): string {
  return JSON.stringify(value).replace(/"__deep_(\d+)_(array|object)__"/g, (_match, depth: string, kind: string) => {
    const n = Number(depth);
    return kind === "array" ? `${"[".repeat(n)}1${"]".repeat(n)}` : `${'{"n":'.repeat(n)}1${"}".repeat(n)}`;
  });
}

/** Values that make each field invalid, whatever else the item holds. */
function invalidValues(random: Random): Record<string, unknown[]> {
  const long = (n: number) => "x".repeat(n);
  const wrongTypes = [42, true, { a: 1 }, ["a"], -0.5];
  return {
    id: [undefined, null, "", long(201 + random.int(5_000)), "nul\u0000id", "lone\ud800", ...wrongTypes],
    key: [undefined, null, "", long(513 + random.int(100_000)), "k\udc00", ...wrongTypes],
    counter: [undefined, null, "1", -1, 1.5, 2 ** 31, 1e300, true, {}, [], Number.MAX_SAFE_INTEGER],
    service: [undefined, null, "", long(201 + random.int(1_000)), 7, ["s"]],
    worker: [undefined, null, "", long(201 + random.int(1_000)), false, { w: 1 }],
    topic: ["", long(513 + random.int(1_000)), 1, { t: 1 }, ["t"]],
    subscription: ["", long(201 + random.int(1_000)), 2, true],
    partition: [-2, 1.5, "3", 2 ** 31, true, {}],
    traceId: ["", long(201 + random.int(1_000)), 5, []],
    observedAt: [
      undefined,
      null,
      "2026-02-30T00:00:00Z",
      "2026-11-22T10:00:00",
      "yesterday",
      "",
      Math.floor(Date.now() / 1000),
      Date.now() + 5 * 86_400_000,
      1.5e12 + 0.5,
      true,
      {},
      "9".repeat(400),
    ],
    attributes: [
      "x",
      [1],
      5,
      true,
      nested(9 + random.int(50_000), random.next() < 0.5),
      { big: long(8_200 + random.int(50_000)) },
      { "k\u0000": 1 },
      { v: "\ud83d" },
    ],
  };
}

const FIELDS = ["id", "key", "counter", "service", "worker", "topic", "subscription", "partition", "traceId", "observedAt", "attributes"];

function invalidItem(random: Random, service: string, n: number): unknown {
  const roll = random.next();
  if (roll < 0.08) return random.pick([null, 0, "event", true, [], [[[]]], nested(10_000 + random.int(50_000), true)]);
  const item: Record<string, unknown> = makeEvent(service, `${service}-invalid-${n}`);
  if (roll < 0.16) {
    // defineProperty: assigning "__proto__" would set the prototype instead of adding a field.
    Object.defineProperty(item, random.pick(["observed_at", "trace_id", "ts", "__proto__", "Counter", ""]), { value: 1, enumerable: true });
    return item;
  }
  const values = invalidValues(random);
  const mutations = 1 + random.int(3);
  for (let m = 0; m < mutations; m++) {
    const field = random.pick(FIELDS);
    const value = random.pick(values[field]!);
    if (value === undefined) delete item[field];
    else item[field] = value;
  }
  return item;
}

type Body = { body: BodyInit; contentType: string | null; validIds: string[]; items: number | null; invalidItems: number | null };

function corrupt(random: Random, text: string): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(text);
  const badSequences = [[0xff], [0xfe], [0xc3, 0x28], [0xe2, 0x28, 0xa1], [0xf0, 0x90, 0x28, 0xbc], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80]];
  const at = random.int(bytes.length);
  return new Uint8Array(Buffer.concat([bytes.subarray(0, at), Buffer.from(random.pick(badSequences)), bytes.subarray(at)]));
}

function makeBody(random: Random, service: string, n: number): Body {
  const validCount = random.int(4);
  const invalidCount = 1 + random.int(12);
  const items: unknown[] = [];
  const validIds: string[] = [];
  for (let i = 0; i < validCount; i++) {
    const id = `${service}-valid-${n}-${i}`;
    validIds.push(id);
    items.push(makeEvent(service, id));
  }
  for (let i = 0; i < invalidCount; i++) items.push(invalidItem(random, service, n * 100 + i));
  // Shuffle so valid items are not always first.
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  const json = serialize(items);
  const shape = random.next();
  // Whole-body malformations: nothing of these may be written.
  if (shape < 0.1) return { body: corrupt(random, json), contentType: "application/json", validIds: [], items: null, invalidItems: null };
  if (shape < 0.17)
    return { body: json.slice(0, 1 + random.int(json.length - 1)), contentType: "application/json", validIds: [], items: null, invalidItems: null };
  if (shape < 0.22)
    return {
      body: random.pick(["", "null", "42", '"x"', "{", "]", "[,]", "{}{}", "[1,]", "\u0000", "NaN"]),
      contentType: "application/json",
      validIds: [],
      items: null,
      invalidItems: null,
    };
  if (shape < 0.26)
    return {
      body: json,
      contentType: random.pick([null, "text/plain", "application/xml", "application/json; charset=latin1", "multipart/form-data"]),
      validIds: [],
      items: null,
      invalidItems: null,
    };
  if (shape < 0.3)
    return {
      body: `${"[".repeat(50_000 + random.int(200_000))}${"]".repeat(10)}`,
      contentType: "application/json",
      validIds: [],
      items: null,
      invalidItems: null,
    };
  if (shape < 0.35) {
    const lines = items.map(serialize);
    lines.splice(random.int(lines.length + 1), 0, random.pick(["{", "nope", '{"a":}', "[1,2"]));
    return { body: lines.join("\n"), contentType: "application/x-ndjson", validIds: [], items: null, invalidItems: null };
  }
  // Bodies that parse: each item is judged on its own.
  if (shape < 0.5) {
    return {
      body: items.map(serialize).join(random.pick(["\n", "\r\n", "\n\n"])),
      contentType: "application/x-ndjson",
      validIds,
      items: items.length,
      invalidItems: invalidCount,
    };
  }
  return {
    body: json,
    contentType: random.pick(["application/json", "application/json; charset=utf-8"]),
    validIds,
    items: items.length,
    invalidItems: invalidCount,
  };
}

const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "fuzz");
});
afterAll(() => db.$disconnect());

describe("fuzzing POST /api/v1/exclusivity-events", () => {
  it(`survives ${BODIES} malformed bodies without a 5xx, writing only their valid items`, async () => {
    const random = createRandom(SEED);
    const service = uniquePrefix("fuzz");
    const rowsBefore = await db.exclusivityEvent.count();
    const expectedIds = new Set<string>();
    const statuses = new Map<number, number>();

    for (let n = 0; n < BODIES; n++) {
      const body = makeBody(random, service, n);
      const response = await POST(eventsRequest(body.body, { token, contentType: body.contentType }), {});
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = await response.text();
      expect(response.status, `body #${n}: ${text.slice(0, 300)}`).toBeLessThan(500);
      expect([200, 400, 413, 415], `body #${n}`).toContain(response.status);
      const answer = JSON.parse(text) as IngestAnswer & { error?: { code: string } };
      if (response.status !== 200) {
        expect(answer.error?.code, `body #${n}`).toEqual(expect.any(String));
        continue;
      }
      if (body.items !== null) {
        expect(answer, `body #${n}`).toMatchObject({ accepted: body.validIds.length, duplicates: 0, rejected: body.invalidItems });
        for (const id of body.validIds) expectedIds.add(id);
      } else {
        expect(answer.accepted, `body #${n} was malformed but accepted`).toBe(0);
      }
    }

    // Every kind of answer came up: the fuzzing reached each path.
    expect([...statuses.keys()].sort()).toEqual([200, 400, 415]);
    const written = await db.exclusivityEvent.findMany({ where: { service }, select: { eventId: true } });
    expect(new Set(written.map((r) => idText(r.eventId)))).toEqual(expectedIds);
    expect(await db.exclusivityEvent.count()).toBe(rowsBefore + expectedIds.size);

    // And the server still answers a plain request.
    const after = await POST(eventsRequest(JSON.stringify([makeEvent(service, `${service}-after`)]), { token }), {});
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ accepted: 1 });
  });
});
