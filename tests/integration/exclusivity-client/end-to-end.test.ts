import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { POST as postCounts } from "@/app/api/v1/exclusivity-counts/route";
import { POST } from "@/app/api/v1/exclusivity-events/route";
import { createExclusivityClient, type ExclusivityClient, type ReportingMode } from "@/lib/exclusivity-client";
import { startRouteServer, type RouteServer } from "@/tests/bench/route-server";
import { createTestToken, openDb, rollupTotals } from "@/tests/integration/ingest/ingest-test-kit";

// Services -> the client library -> real HTTP -> the ingest route -> PostgreSQL.

const db = openDb();
const connections = [0, 1, 2].map(() => new Redis({ host: "127.0.0.1", port: 6379 }));
let server: RouteServer;
let token: string;

beforeAll(async () => {
  token = await createTestToken(db, "client-e2e");
  server = await startRouteServer({ "POST /api/v1/exclusivity-events": POST, "POST /api/v1/exclusivity-counts": postCounts });
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
          client.withExclusivity(
            `key-${k}`,
            async () => {
              if (++arrived === clients.length) release();
              await allInside;
            },
            { subscription: "orders-sub", partition: k % 3 },
          ),
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

/** On each key, all the clients are held inside together once, then each enters alone once. */
async function overlapThenTakeTurns(clients: readonly ExclusivityClient[], keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    let arrived = 0;
    let release!: () => void;
    const allInside = new Promise<void>((resolve) => (release = resolve));
    await Promise.all(
      clients.map((client) =>
        client.withExclusivity(
          key,
          async () => {
            if (++arrived === clients.length) release();
            await allInside;
          },
          { subscription: "orders-sub" },
        ),
      ),
    );
    for (const client of clients) await client.withExclusivity(key, () => undefined, { subscription: "orders-sub" });
  }
}

describe('a service that restarts from "all" into "violations+counts"', () => {
  it("counts every increment exactly once, and a re-sent minute changes nothing", async () => {
    const service = `svc-${randomUUID()}`;
    const errors: Error[] = [];
    const countBodies: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      if (String(input).endsWith("/api/v1/exclusivity-counts")) countBodies.push(String(init?.body));
      return fetch(input, init);
    };
    const start = (report: ReportingMode) =>
      connections.map((redis, i) =>
        createExclusivityClient({
          redis,
          keyPrefix: `baton-test:${service}:`,
          baton: { url: server.url, token },
          service,
          worker: `pod-${i}`,
          report,
          fetch: recordingFetch,
          onError: (error) => errors.push(error),
        }),
      );
    const keys = ["a", "b", "c", "d"];
    // Each phase: 4 keys x (3 together + 3 alone) = 24 increments, of which 8 violations.
    const before = start("all");
    await overlapThenTakeTurns(before, keys);
    await Promise.all(before.map((client) => client.close()));
    const after = start("violations+counts");
    await overlapThenTakeTurns(after, keys);
    await Promise.all(after.map((client) => client.close()));
    expect(errors).toEqual([]);

    // What is summed: violation_minute.events = events stored (every increment in "all", the
    // violations in "violations+counts") + the counted increments (the clean ones in
    // "violations+counts"). Every increment is in exactly one of the two.
    expect(await rollupTotals(db, service)).toEqual({ events: 48, violations: 16 });
    expect(await db.exclusivityEvent.count({ where: { service } })).toBe(24 + 8);
    const counted = await db.exclusivityCount.aggregate({ where: { service }, _sum: { increments: true } });
    expect(counted._sum.increments).toBe(16);
    const clientIds = await db.exclusivityCount.findMany({ where: { service }, distinct: ["clientId"], select: { clientId: true } });
    expect(clientIds).toHaveLength(3);

    // Every minute re-sent (a retry after a lost answer): nothing new, nothing counted twice.
    expect(countBodies.length).toBeGreaterThanOrEqual(3);
    for (const body of countBodies) {
      const response = await fetch(`${server.url}/api/v1/exclusivity-counts`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      expect(await response.json()).toMatchObject({ accepted: 0 });
    }
    expect(await rollupTotals(db, service)).toEqual({ events: 48, violations: 16 });

    // The violations of the second phase name who was inside.
    const violations = await db.exclusivityEvent.findMany({
      where: { service, counter: { gt: 0 } },
      select: { counter: true, worker: true, othersInside: true },
    });
    for (const violation of violations) {
      const others = violation.othersInside as { worker: string; enteredAt: number }[];
      expect(others).toHaveLength(violation.counter);
      expect(others.map((o) => o.worker)).not.toContain(violation.worker);
    }
  });
});
