import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST } from "@/app/api/v1/exclusivity-events/route";
import { createExclusivityClient } from "@/lib/exclusivity-client";
import { startRouteServer, type RouteServer } from "@/tests/bench/route-server";
import { createTestToken, openDb, rollupTotals } from "@/tests/integration/ingest/ingest-test-kit";

// Services -> the client library -> real HTTP -> the ingest route -> PostgreSQL.

const db = openDb();
const connections = [0, 1, 2].map(() => new Redis({ host: "127.0.0.1", port: 6379 }));
let server: RouteServer;
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "client-e2e");
  server = await startRouteServer({ "POST /api/v1/exclusivity-events": POST });
});

afterAll(async () => {
  await server.close();
  await Promise.all(connections.map((c) => c.quit()));
  await db.$disconnect();
});

describe("exclusivity client against Baton's ingest API", () => {
  it("lands every increment in PostgreSQL, violations counted in the per-minute rollup", async () => {
    const service = `svc-${randomUUID()}`;
    const errors: Error[] = [];
    const clients = connections.map((redis, i) =>
      createExclusivityClient({
        redis,
        keyPrefix: `baton-test:${service}:`,
        baton: { url: server.url, token },
        service,
        worker: `pod-${i}`,
        maxBatch: 25,
        onError: (error) => errors.push(error),
      }),
    );
    // Ten keys; on each, all three workers are held inside together once (2 violations),
    // then each enters alone once (no violation).
    for (let k = 0; k < 10; k++) {
      let arrived = 0;
      let release!: () => void;
      const allInside = new Promise<void>((resolve) => (release = resolve));
      await Promise.all(
        clients.map((client) =>
          client.withExclusivity(`key-${k}`, async () => {
            if (++arrived === clients.length) release();
            await allInside;
          }, { subscription: "orders-sub", partition: k % 3 }),
        ),
      );
      for (const client of clients) await client.withExclusivity(`key-${k}`, () => undefined, { subscription: "orders-sub", partition: k % 3 });
    }
    await Promise.all(clients.map((client) => client.close()));

    expect(errors).toEqual([]);
    const rows = await db.exclusivityEvent.findMany({ where: { service }, select: { counter: true, worker: true, partition: true, subscription: true } });
    expect(rows).toHaveLength(60);
    expect(rows.filter((r) => r.counter > 0)).toHaveLength(20);
    expect(new Set(rows.map((r) => r.worker))).toEqual(new Set(["pod-0", "pod-1", "pod-2"]));
    expect(await rollupTotals(db, service)).toEqual({ events: 60, violations: 20 });
  });
});
