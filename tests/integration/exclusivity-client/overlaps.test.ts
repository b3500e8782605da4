import { randomUUID } from "node:crypto";
import type http from "node:http";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type CounterBackend, type CounterEvent, createExclusivityClient, createRedisCounter, type ExclusivityClient } from "@/lib/exclusivity-client";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";

// Concurrent workers, each with its own Redis connection and client, on real Redis. Overlaps
// are made on purpose (workers held inside a key together) or left to chance (random work
// times), and the events Baton would receive are checked against what really happened.

const WORKERS = 6;

let baton: TestServer;
const received: CounterEvent[] = [];
const clientErrors: Error[] = [];
const connections: Redis[] = [];

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

beforeAll(async () => {
  // Stands in for Baton: records each batch and answers like the ingest API.
  baton = await startHttpServer((req, res) => {
    void readBody(req).then((text) => {
      const events = JSON.parse(text) as CounterEvent[];
      received.push(...events);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: events.length, duplicates: 0, rejected: 0, errors: [] }));
    });
  });
});

afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit()));
  await baton.close();
});

type Section = { worker: string; key: string; counter: number | null; incrementStart: number; decrementEnd: number; fnStart: number; fnEnd: number };

/** A Redis counter that records when each increment was sent and each decrement answered. */
function timedCounter(inner: CounterBackend, log: { incrementStart: number[]; decrementEnd: number[] }): CounterBackend {
  return {
    enter: async (key, entry) => {
      log.incrementStart.push(performance.now());
      return inner.enter(key, entry);
    },
    exit: async (key, entryId) => {
      await inner.exit(key, entryId);
      log.decrementEnd.push(performance.now());
    },
  };
}

type Worker = { name: string; client: ExclusivityClient; sections: Section[]; run(key: string, work: () => Promise<void>): Promise<void> };

function makeWorkers(service: string, keyPrefix: string, report: "all" | "violations" = "all"): Worker[] {
  return Array.from({ length: WORKERS }, (_, index) => {
    const connection = new Redis({ host: "127.0.0.1", port: 6379 });
    connections.push(connection);
    const times = { incrementStart: [] as number[], decrementEnd: [] as number[] };
    const name = `worker-${index}`;
    const client = createExclusivityClient({
      counter: timedCounter(createRedisCounter(connection), times),
      keyPrefix,
      baton: { url: baton.url, token: "bat_test" },
      service,
      worker: name,
      report,
      flushIntervalMs: 50,
      maxBatch: 200,
      onError: (error) => clientErrors.push(error),
    });
    const sections: Section[] = [];
    return {
      name,
      client,
      sections,
      async run(key, work) {
        let fnStart = 0;
        let fnEnd = 0;
        let counter: number | null = null;
        await client.withExclusivity(key, async (entry) => {
          counter = entry.counter;
          fnStart = performance.now();
          await work();
          fnEnd = performance.now();
        });
        sections.push({ worker: name, key, counter, incrementStart: times.incrementStart.at(-1)!, decrementEnd: times.decrementEnd.at(-1)!, fnStart, fnEnd });
      },
    };
  });
}

async function flushAll(workers: Worker[]): Promise<CounterEvent[]> {
  await Promise.all(workers.map((w) => w.client.close()));
  expect(clientErrors).toEqual([]);
  return received;
}

function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const allIn = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    if (++arrived === count) release();
    await allIn;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("withExclusivity on real Redis with concurrent workers", () => {
  it("reports nothing when workers take turns on each key (no false reports)", async () => {
    const service = `svc-${randomUUID()}`;
    const workers = makeWorkers(service, `baton-test:${randomUUID()}:`);
    const keys = Array.from({ length: 12 }, (_, i) => `turns-${i}`);
    // Per key, a relay: each section starts only after the previous one returned (its
    // decrement answered), handed between random workers; the keys run concurrently.
    await Promise.all(
      keys.map(async (key, k) => {
        for (let turn = 0; turn < 40; turn++) {
          const worker = workers[(k * 7 + turn * 5) % WORKERS]!;
          await worker.run(key, () => sleep(turn % 3));
        }
      }),
    );
    const events = (await flushAll(workers)).filter((e) => e.service === service);
    expect(events).toHaveLength(keys.length * 40);
    expect(events.filter((e) => e.counter > 0)).toEqual([]);
  });

  it("reports every worker that enters while others are inside, with the counter it saw", async () => {
    const service = `svc-${randomUUID()}`;
    const workers = makeWorkers(service, `baton-test:${randomUUID()}:`, "violations");
    const expected: string[] = [];
    const workersOfKey = new Map<string, string[]>();
    // Rounds in which 2..6 workers are held inside the same key until all of them are in.
    const rounds = Array.from({ length: 30 }, (_, round) => ({ key: `overlap-${round}`, size: 2 + (round % (WORKERS - 1)) }));
    await Promise.all(
      rounds.map(async ({ key, size }, round) => {
        const allInside = barrier(size);
        const chosen = Array.from({ length: size }, (_, i) => workers[(round + i) % WORKERS]!);
        workersOfKey.set(
          key,
          chosen.map((w) => w.name),
        );
        await Promise.all(chosen.map((worker) => worker.run(key, allInside)));
        // The counters seen are 0, 1, ..., size-1: everyone but the first is a violation.
        for (let seen = 1; seen < size; seen++) expected.push(`${key}:${seen}`);
      }),
    );
    const events = (await flushAll(workers)).filter((e) => e.service === service);
    expect(events.map((e) => `${e.key}:${e.counter}`).sort()).toEqual(expected.sort());
    // Each violation names exactly the others inside: workers of the same round, not itself,
    // entered before it.
    for (const event of events) {
      const others = event.othersInside ?? [];
      expect(others).toHaveLength(event.counter);
      for (const other of others) {
        expect(workersOfKey.get(event.key)).toContain(other.worker);
        expect(other.worker).not.toBe(event.worker);
        expect(other.enteredAt).toBeLessThanOrEqual(event.observedAt);
      }
    }
  });

  it("matches what really happened when overlaps are left to chance", async () => {
    const service = `svc-${randomUUID()}`;
    const workers = makeWorkers(service, `baton-test:${randomUUID()}:`);
    const keys = ["hot-a", "hot-b", "hot-c"];
    await Promise.all(
      workers.map(async (worker, w) => {
        for (let i = 0; i < 40; i++) await worker.run(keys[(w + i) % keys.length]!, () => sleep((w * 13 + i * 7) % 5));
      }),
    );
    const events = (await flushAll(workers)).filter((e) => e.service === service);
    const sections = workers.flatMap((w) => w.sections);
    expect(events).toHaveLength(sections.length);
    expect(sections.every((s) => s.counter !== null)).toBe(true);

    const overlaps = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];
    let overlappingPairs = 0;
    for (let i = 0; i < sections.length; i++) {
      const a = sections[i]!;
      // Every overlap is reported: when two sections' work overlapped, one of them saw the other.
      for (let k = i + 1; k < sections.length; k++) {
        const b = sections[k]!;
        if (b.key !== a.key || !overlaps([a.fnStart, a.fnEnd], [b.fnStart, b.fnEnd])) continue;
        overlappingPairs += 1;
        expect(a.counter! > 0 || b.counter! > 0, `${a.worker} and ${b.worker} overlapped on ${a.key} unreported`).toBe(true);
      }
      // No false report: a section that saw someone had another section inside its counter window.
      if (a.counter! > 0) {
        const isExplained = sections.some(
          (b, k) => k !== i && b.key === a.key && overlaps([a.incrementStart, a.decrementEnd], [b.incrementStart, b.decrementEnd]),
        );
        expect(isExplained, `${a.worker} reported ${a.counter} on ${a.key} alone`).toBe(true);
      }
    }
    // The schedule must actually produce overlaps, or the test proves nothing.
    expect(overlappingPairs).toBeGreaterThan(10);
    // And the number reported equals what the sections saw.
    expect(events.filter((e) => e.counter > 0)).toHaveLength(sections.filter((s) => s.counter! > 0).length);
  });
});
