import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import {
  countEvents,
  createTestToken,
  eventsRequest,
  type IngestAnswer,
  makeEvent,
  openDb,
  rollupTotals,
  uniquePrefix,
} from "@/tests/integration/ingest/ingest-test-kit";

const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "idempotency");
});
afterAll(() => db.$disconnect());

async function send(items: unknown[]): Promise<IngestAnswer> {
  const response = await POST(eventsRequest(JSON.stringify(items), { token }), {});
  expect(response.status).toBe(200);
  return (await response.json()) as IngestAnswer;
}

function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe("idempotency under concurrent re-sends", () => {
  it("writes a batch once when several clients send it at the same time, again and again", async () => {
    const service = uniquePrefix("svc");
    const batch = Array.from({ length: 1_000 }, (_, i) => makeEvent(service, `${service}-${i}`, { counter: i % 4 === 0 ? 1 : 0, key: `user-${i % 50}` }));
    const clients = 6;
    const rounds = 3;
    const answers: IngestAnswer[] = [];
    for (let round = 0; round < rounds; round++) {
      answers.push(...(await Promise.all(Array.from({ length: clients }, () => send(batch)))));
    }
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(1_000);
    expect(answers.reduce((sum, a) => sum + a.duplicates, 0)).toBe(1_000 * (clients * rounds - 1));
    expect(answers.every((a) => a.rejected === 0)).toBe(true);
    expect(await countEvents(db, service)).toBe(1_000);
    expect(await rollupTotals(db, service)).toEqual({ events: 1_000, violations: 250 });
  });

  it("does not deadlock or double-count when concurrent batches overlap in different orders", async () => {
    const service = uniquePrefix("svc");
    const all = Array.from({ length: 2_400 }, (_, i) => makeEvent(service, `${service}-${i}`, { counter: i % 2, subscription: `sub-${i % 7}` }));
    // Eight clients, each sending an overlapping slice of the ids in its own order.
    const slices = Array.from({ length: 8 }, (_, c) => shuffled(all.slice(c * 200, c * 200 + 1_000), c + 1));
    const answers = await Promise.all(slices.map((slice) => send(slice)));
    const sentIds = new Set(slices.flat().map((e) => e.id));
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(sentIds.size);
    expect(answers.reduce((sum, a) => sum + a.accepted + a.duplicates, 0)).toBe(8 * 1_000);
    expect(await countEvents(db, service)).toBe(sentIds.size);
    const violations = [...sentIds].filter((id) => Number(String(id).split("-").pop()) % 2 === 1).length;
    expect(await rollupTotals(db, service)).toEqual({ events: sentIds.size, violations });
  });
});
