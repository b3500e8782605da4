import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { validateEvents } from "@/lib/ingest/validate-events";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const RULES = { retentionDays: 30 };

function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "0b9c1f7e-1",
    key: "user-42",
    counter: 0,
    service: "orders",
    worker: "orders-7f9c-1",
    topic: "persistent://acme/orders/events",
    subscription: "orders-sub",
    partition: 3,
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    observedAt: "2026-11-22T11:59:00.000Z",
    ...overrides,
  };
}

/** Another worker inside, 30 s before the event's observedAt (11:59). */
function inside(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { worker: "pod-a", enteredAt: NOW - 90_000, ...overrides };
}

function without(field: string): Record<string, unknown> {
  const copy = event();
  delete copy[field];
  return copy;
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});
afterEach(() => vi.useRealTimers());

describe("validateEvents", () => {
  it("turns a valid item into a row", () => {
    const { events, rejected } = validateEvents([event({ attributes: { region: "eu" } })], RULES);
    expect(rejected).toEqual([]);
    expect(events).toEqual([
      {
        eventId: "0b9c1f7e-1",
        key: "user-42",
        counter: 0,
        service: "orders",
        worker: "orders-7f9c-1",
        topic: "persistent://acme/orders/events",
        subscription: "orders-sub",
        partition: 3,
        traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
        observedAtMs: Date.UTC(2026, 10, 22, 11, 59),
        attributesJson: '{"region":"eu"}',
        othersInsideJson: null,
        lock: null,
      },
    ]);
  });

  it("keeps the lock the work ran under, its key free to hold slashes", () => {
    const { events, rejected } = validateEvents([event({ lock: "redis-main/locks/daily-job" })], RULES);
    expect(rejected).toEqual([]);
    expect(events[0]!.lock).toBe("redis-main/locks/daily-job");
  });

  it("takes optional fields as absent or null, and epoch milliseconds", () => {
    const minimal = { id: "m", key: "k", counter: 2, service: "s", worker: "w", observedAt: NOW - 1_000 };
    const nulls = { ...minimal, id: "n", topic: null, subscription: null, partition: null, traceId: null };
    const { events, rejected } = validateEvents([minimal, nulls], RULES);
    expect(rejected).toEqual([]);
    expect(events.map((e) => [e.eventId, e.topic, e.partition, e.observedAtMs, e.attributesJson])).toEqual([
      ["m", null, null, NOW - 1_000, null],
      ["n", null, null, NOW - 1_000, null],
    ]);
  });

  // Every way an item can be wrong, with the field and message the client gets back.
  it.each([
    ["not an object", 42, null, /must be a JSON object/],
    ["an array", [event()], null, /must be a JSON object/],
    ["null", null, null, /must be a JSON object/],
    ["id missing", without("id"), "id", /is required/],
    ["id a number", event({ id: 7 }), "id", /must be a string/],
    ["id empty", event({ id: "" }), "id", /must not be empty/],
    ["id too long", event({ id: "x".repeat(201) }), "id", /at most 200/],
    ["id with NUL", event({ id: "a\u0000b" }), "id", /NUL/],
    ["key missing", without("key"), "key", /is required/],
    ["key too long", event({ key: "k".repeat(513) }), "key", /at most 512/],
    ["key with a lone surrogate", event({ key: "k\ud800" }), "key", /surrogates/],
    ["counter missing", without("counter"), "counter", /is required/],
    ["counter a string", event({ counter: "1" }), "counter", /must be a number/],
    ["counter fractional", event({ counter: 1.5 }), "counter", /integer/],
    ["counter negative", event({ counter: -1 }), "counter", /0 or more/],
    ["counter too large", event({ counter: 2 ** 31 }), "counter", /at most 2147483647/],
    ["service missing", without("service"), "service", /is required/],
    ["service too long", event({ service: "s".repeat(201) }), "service", /at most 200/],
    ["worker missing", without("worker"), "worker", /is required/],
    ["worker an object", event({ worker: { name: "w" } }), "worker", /must be a string/],
    ["topic too long", event({ topic: "t".repeat(513) }), "topic", /at most 512/],
    ["subscription a number", event({ subscription: 1 }), "subscription", /must be a string/],
    ["partition below -1", event({ partition: -2 }), "partition", /-1/],
    ["partition a string", event({ partition: "3" }), "partition", /must be a number/],
    ["traceId too long", event({ traceId: "t".repeat(201) }), "traceId", /at most 200/],
    ["observedAt missing", without("observedAt"), "observedAt", /is required/],
    ["observedAt not a date", event({ observedAt: "2026-02-30T00:00:00Z" }), "observedAt", /RFC 3339/],
    ["observedAt without offset", event({ observedAt: "2026-11-22T11:00:00" }), "observedAt", /RFC 3339/],
    ["observedAt in seconds", event({ observedAt: Math.floor(NOW / 1000) }), "observedAt", /seconds/],
    ["observedAt two days ahead", event({ observedAt: NOW + 2 * 86_400_000 }), "observedAt", /future/],
    ["observedAt older than the retention", event({ observedAt: NOW - 31 * 86_400_000 }), "observedAt", /older than the 30-day retention/],
    ["attributes an array", event({ attributes: [1] }), "attributes", /JSON object/],
    ["attributes too large", event({ attributes: { x: "y".repeat(9_000) } }), "attributes", /8192 bytes/],
    ["an unknown field", event({ observed_at: "x" }), "observed_at", /not a known field/],
    ["a lock without its cluster", event({ lock: "lock:daily-job" }), "lock", /<cluster>\/<lock key>/],
    ["a lock with an empty key", event({ lock: "redis-main/" }), "lock", /<cluster>\/<lock key>/],
    ["a lock that is not text", event({ lock: 42 }), "lock", /string/],
    ["othersInside not an array", event({ counter: 1, othersInside: { worker: "a" } }), "othersInside", /must be an array/],
    ["othersInside longer than counter", event({ counter: 1, othersInside: [inside(), inside()] }), "othersInside", /at most counter \(1\)/],
    ["othersInside on a non-violation", event({ othersInside: [inside()] }), "othersInside", /at most counter \(0\)/],
    ["othersInside over 10", event({ counter: 11, othersInside: Array.from({ length: 11 }, () => inside()) }), "othersInside", /at most 10 workers/],
    ["othersInside item not an object", event({ counter: 1, othersInside: ["pod-a"] }), "othersInside.0", /JSON object/],
    [
      "othersInside item with an unknown field",
      event({ counter: 2, othersInside: [inside(), inside({ since: 1 })] }),
      "othersInside.1.since",
      /not a known field/,
    ],
    ["othersInside worker missing", event({ counter: 1, othersInside: [{ enteredAt: NOW - 90_000 }] }), "othersInside.0.worker", /is required/],
    ["othersInside worker too long", event({ counter: 1, othersInside: [inside({ worker: "w".repeat(201) })] }), "othersInside.0.worker", /at most 200/],
    ["othersInside enteredAt missing", event({ counter: 1, othersInside: [{ worker: "pod-a" }] }), "othersInside.0.enteredAt", /is required/],
    ["othersInside enteredAt not a date", event({ counter: 1, othersInside: [inside({ enteredAt: "yesterday" })] }), "othersInside.0.enteredAt", /RFC 3339/],
    [
      "othersInside enteredAt after observedAt",
      event({ counter: 1, othersInside: [inside({ enteredAt: NOW })] }),
      "othersInside.0.enteredAt",
      /must not be after observedAt/,
    ],
  ])("rejects %s", (_label, item, field, message) => {
    const { events, rejected } = validateEvents([item], RULES);
    expect(events).toEqual([]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ index: 0, field });
    expect(rejected[0]!.message).toMatch(message);
  });

  it("stores othersInside as JSON with epoch-ms entry times; an empty list as nothing", () => {
    const { events, rejected } = validateEvents(
      [
        event({ id: "v", counter: 2, othersInside: [inside(), inside({ worker: "pod-b", enteredAt: "2026-11-22T11:58:59.150Z" })] }),
        event({ id: "e", counter: 1, othersInside: [] }),
        event({ id: "n", counter: 1, othersInside: null }),
      ],
      RULES,
    );
    expect(rejected).toEqual([]);
    expect(events.map((e) => e.othersInsideJson)).toEqual([
      JSON.stringify([
        { worker: "pod-a", enteredAt: NOW - 90_000 },
        { worker: "pod-b", enteredAt: NOW - 60_850 },
      ]),
      null,
      null,
    ]);
  });

  it("accepts an event from the first day of the retention period", () => {
    const { events, rejected } = validateEvents([event({ observedAt: NOW - 29 * 86_400_000 })], RULES);
    expect(rejected).toEqual([]);
    expect(events).toHaveLength(1);
  });

  it("validates each item on its own and reports indexes", () => {
    const { events, rejected } = validateEvents([event({ id: "a" }), event({ id: "b", counter: -1 }), event({ id: "c" }), "junk"], RULES);
    expect(events.map((e) => e.eventId)).toEqual(["a", "c"]);
    expect(rejected.map((r) => [r.index, r.field])).toEqual([
      [1, "counter"],
      [3, null],
    ]);
  });

  it("counts a repeated id within the batch as a duplicate, keeping the first", () => {
    const { events, duplicatesInBatch } = validateEvents([event({ id: "a", key: "first" }), event({ id: "a", key: "second" }), event({ id: "b" })], RULES);
    expect(events.map((e) => [e.eventId, e.key])).toEqual([
      ["a", "first"],
      ["b", "user-42"],
    ]);
    expect(duplicatesInBatch).toBe(1);
  });
});
