import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import { createTestToken, eventsRequest, type IngestAnswer, makeEvent, openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";

// The rollups are maintained as events arrive, by two paths (lib/ingest/write-events.ts): counts
// made in Node for a batch of new events, counts of the rows inserted for a batch holding
// re-sent ones. Whatever the mix, violation_minute and violation_hour must equal a recount from
// the events themselves.

const db = openDb();
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "rollup-recount");
});
afterAll(() => db.$disconnect());

async function send(items: unknown[]): Promise<IngestAnswer> {
  const response = await POST(eventsRequest(JSON.stringify(items), { token }), {});
  expect(response.status).toBe(200);
  return (await response.json()) as IngestAnswer;
}

/** A deterministic sequence in [0, 1), so that a failure can be run again as it was. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

type CountRow = { bucket: Date; service: string; subscription: string; violations: number; events: number };

async function recount(unit: "minute" | "hour", services: string[]): Promise<CountRow[]> {
  return db.$queryRawUnsafe<CountRow[]>(
    `SELECT bucket, service, subscription, (count(*) FILTER (WHERE counter > 0))::int AS violations, count(*)::int AS events
     FROM (SELECT date_trunc('${unit}', observed_at, 'UTC') AS bucket, service, coalesce(subscription, '') AS subscription, counter
           FROM exclusivity_event WHERE service = ANY($1::text[])) AS events
     GROUP BY bucket, service, subscription ORDER BY bucket, service COLLATE "C", subscription COLLATE "C"`,
    services,
  );
}

async function rollupRows(table: "violation_minute" | "violation_hour", services: string[]): Promise<CountRow[]> {
  return db.$queryRawUnsafe<CountRow[]>(
    `SELECT bucket, service, subscription, violations, events FROM ${table}
     WHERE service = ANY($1::text[]) ORDER BY bucket, service COLLATE "C", subscription COLLATE "C"`,
    services,
  );
}

describe("the rollups after a run with half the events re-sent", () => {
  it("equal a recount from the events, per minute and per hour", async () => {
    const random = seededRandom(20261207);
    const services = [uniquePrefix("svc-a"), uniquePrefix("svc-b")];
    const now = Date.now();
    let next = 0;
    const newEvent = () => {
      const n = next++;
      const service = services[n % 2]!;
      // Over the last two hours, so that batches cross minutes and hours; some with no subscription.
      const observedAt = new Date(now - Math.floor(random() * 2 * 60 * 60_000)).toISOString();
      const subscription = ["orders-sub", "billing-sub", undefined][n % 3];
      return makeEvent(service, `${service}-${n}`, { observedAt, counter: random() < 0.3 ? 1 : 0, subscription });
    };
    const sent: Record<string, unknown>[] = [];
    const batchSize = 400;
    const rounds = 6;
    const clients = 4;
    let accepted = 0;
    for (let round = 0; round < rounds; round++) {
      // The first round all new; after it, each batch half new and half re-sent from any earlier batch.
      const batches = Array.from({ length: clients }, () => {
        const fresh = Array.from({ length: round === 0 ? batchSize : batchSize / 2 }, newEvent);
        const again = round === 0 ? [] : Array.from({ length: batchSize / 2 }, () => sent[Math.floor(random() * sent.length)]!);
        return [...fresh, ...again];
      });
      const answers = await Promise.all(batches.map((batch) => send(batch)));
      for (const answer of answers) {
        expect(answer.rejected).toBe(0);
        accepted += answer.accepted;
      }
      for (const batch of batches) sent.push(...batch.filter((event) => !sent.includes(event)));
    }
    const distinct = new Set(sent.map((event) => event.id)).size;
    expect(accepted).toBe(distinct);

    const minutes = await recount("minute", services);
    expect(minutes.reduce((sum, row) => sum + row.events, 0)).toBe(distinct);
    expect(minutes.length).toBeGreaterThan(60);
    expect(await rollupRows("violation_minute", services)).toEqual(minutes);
    expect(await rollupRows("violation_hour", services)).toEqual(await recount("hour", services));
  });
});
