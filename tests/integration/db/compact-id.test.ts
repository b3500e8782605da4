import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { applyMigrations } from "@/lib/db/migrate";
import { compactId, compactIdHex, idText } from "@/lib/ingest/compact-id";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import { writeEvents } from "@/lib/ingest/write-events";
import { createScratchDatabase, getTestDatabaseUrl } from "@/tests/support/test-database";

// The writer packs ids in TypeScript (lib/ingest/compact-id.ts); lookups and reads use the SQL
// functions of the migration. Both must pack every id to the same bytes, and read every packed id
// back as it was sent.

const IDS = [
  "3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60", // canonical UUID: 17 bytes
  "3F2C9A1E-8B7D-4C6E-9F0A-1B2C3D4E5F60", // uppercase: kept as text
  "3f2c9a1e8b7d4c6e9f0a1b2c3d4e5f60", // a UUID without hyphens: lowercase hex
  "4bf92f3577b34da6a3ce929d0e0e4736", // W3C trace id
  "00f067aa0ba902b7", // W3C span id
  "abc", // odd number of hex digits: text
  "ab", // one byte of hex
  "3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f6", // one digit short of a UUID
  "3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60 ", // trailing space
  "order-42:attempt-3",
  "NULL",
  'quote " back\\slash',
  "ümlaut \u{1F600}",
  "x",
];

let pool: pg.Pool;
let databaseUrl: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createScratchDatabase(getTestDatabaseUrl(), "compact_id");
  drop = database.drop;
  databaseUrl = database.url;
  await applyMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

describe("packed ids", () => {
  it("pack to the same bytes in TypeScript and in SQL", async () => {
    const { rows } = await pool.query<{ id: string; packed: string }>(
      "select id, encode(baton_compact_id(id), 'hex') as packed from unnest($1::text[]) as id",
      [IDS],
    );
    expect(rows.map((row) => [row.id, row.packed])).toEqual(IDS.map((id) => [id, compactIdHex(id)]));
  });

  it("read back as they were sent, on both sides", async () => {
    const { rows } = await pool.query<{ back: string }>(
      "select baton_id_text(decode(packed, 'hex')) as back from unnest($1::text[]) with ordinality as t(packed, n) order by n",
      [IDS.map(compactIdHex)],
    );
    expect(rows.map((row) => row.back)).toEqual(IDS);
    expect(IDS.map((id) => idText(compactId(id)))).toEqual(IDS);
  });

  it("take 17 bytes for a UUID and a W3C trace id, and one more than their text otherwise", () => {
    expect(compactId("3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60")).toHaveLength(17);
    expect(compactId("4bf92f3577b34da6a3ce929d0e0e4736")).toHaveLength(17);
    expect(compactId("order-42")).toHaveLength(9);
    expect(compactId("ümlaut")).toHaveLength(1 + Buffer.byteLength("ümlaut"));
  });

  it("are what ingest stores: a UUID id and a W3C trace id in 17 bytes each, read back by the SQL function", async () => {
    const ingestPool = createIngestPool(databaseUrl);
    try {
      const event = {
        key: "k",
        counter: 0,
        service: "svc-packed",
        worker: "w",
        topic: null,
        subscription: null,
        partition: null,
        observedAtMs: Date.now(),
        attributesJson: null,
        othersInsideJson: null,
        lock: null,
      };
      const written = await writeEvents(
        ingestPool,
        [
          { ...event, eventId: IDS[0]!, traceId: IDS[3]! },
          { ...event, eventId: IDS[9]!, traceId: IDS[5]! },
        ],
        "HTTP",
      );
      expect(written).toBe(2);
    } finally {
      await ingestPool.end();
    }
    const { rows } = await pool.query<{ id: string; id_bytes: number; trace: string; trace_bytes: number }>(
      "select baton_id_text(event_id) as id, octet_length(event_id) as id_bytes, baton_id_text(trace_id) as trace, octet_length(trace_id) as trace_bytes from exclusivity_event where service = 'svc-packed' order by 1",
    );
    expect(rows).toEqual([
      { id: IDS[0], id_bytes: 17, trace: IDS[3], trace_bytes: 17 },
      { id: IDS[9], id_bytes: 1 + IDS[9]!.length, trace: IDS[5], trace_bytes: 1 + IDS[5]!.length },
    ]);
  });

  it("refuse bytes that no id packs to", () => {
    expect(() => idText(new Uint8Array([0x02, 1, 2, 3]))).toThrow(/not a stored id/);
    expect(() => idText(new Uint8Array([0x07, 1]))).toThrow(/not a stored id/);
    expect(() => idText(new Uint8Array([]))).toThrow(/not a stored id/);
  });
});
