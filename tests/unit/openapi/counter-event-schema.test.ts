import { describe, expect, it } from "vitest";

import { validateEvent } from "@/lib/ingest/validate-event";
import { counterEventSchema } from "@/lib/openapi/counter-event-schema";

// The documented event schema restates lib/ingest/validate-event.ts (plain code on the hot
// path): the two must give the same verdict, and name the same field, item by item.

const DAY_MS = 86_400_000;
const nowMs = Date.now();
const window = { nowMs, oldestMs: nowMs - 30 * DAY_MS, retentionDays: 30, oldestViolationMs: nowMs - 30 * DAY_MS, violationRetentionDays: 30 };

const valid = { id: "e-1", key: "order-1", counter: 0, service: "orders", worker: "w-1", observedAt: nowMs - 60_000 };

const CASES: [string, Record<string, unknown>][] = [
  ["the required fields only", valid],
  [
    "every optional field",
    { ...valid, topic: "persistent://shop/orders/payments", subscription: "s", partition: -1, traceId: "t", attributes: { a: [1, { b: null }] } },
  ],
  ["optional fields as null", { ...valid, topic: null, subscription: null, partition: null, traceId: null, attributes: null }],
  ["an RFC 3339 time with an offset", { ...valid, observedAt: new Date(nowMs - DAY_MS).toISOString().replace("Z", "+00:00") }],
  ["a time without an offset", { ...valid, observedAt: new Date(nowMs - DAY_MS).toISOString().slice(0, 19) }],
  ["epoch seconds", { ...valid, observedAt: Math.floor(nowMs / 1000) }],
  ["two days ahead", { ...valid, observedAt: nowMs + 2 * DAY_MS }],
  ["a fractional millisecond", { ...valid, observedAt: nowMs - 0.5 }],
  ["no id", { ...valid, id: undefined }],
  ["an empty key", { ...valid, key: "" }],
  ["a key too long", { ...valid, key: "k".repeat(513) }],
  ["a negative counter", { ...valid, counter: -1 }],
  ["a fractional counter", { ...valid, counter: 1.5 }],
  ["a counter past int4", { ...valid, counter: 2 ** 31 }],
  ["a counter as a string", { ...valid, counter: "1" }],
  ["partition -2", { ...valid, partition: -2 }],
  ["a worker with NUL", { ...valid, worker: "w\u0000" }],
  ["an unpaired surrogate", { ...valid, service: "s\uD800" }],
  ["an unknown field", { ...valid, holder: "w-2" }],
  ["attributes as an array", { ...valid, attributes: [1] }],
  ["attributes too deep", { ...valid, attributes: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }],
  ["attributes too large", { ...valid, attributes: { text: "x".repeat(9000) } }],
  ["a violation naming who was inside", { ...valid, counter: 1, othersInside: [{ worker: "w-0", enteredAt: nowMs - 61_000 }] }],
  [
    "more others inside than the counter",
    {
      ...valid,
      counter: 1,
      othersInside: [
        { worker: "w-0", enteredAt: nowMs - 61_000 },
        { worker: "w-2", enteredAt: nowMs - 62_000 },
      ],
    },
  ],
  ["another worker entering after this one", { ...valid, counter: 1, othersInside: [{ worker: "w-0", enteredAt: nowMs - 1_000 }] }],
  ["the lock it ran under", { ...valid, lock: "redis-main/lock:daily-job/eu" }],
  ["a lock without its cluster", { ...valid, lock: "lock:daily-job" }],
  ["a lock whose cluster is no cluster name", { ...valid, lock: "redis main/lock:x" }],
  ["an unknown field of an other inside", { ...valid, counter: 1, othersInside: [{ worker: "w-0", enteredAt: nowMs - 61_000, pod: "x" }] }],
];

describe("counterEventSchema against validateEvent", () => {
  it.each(CASES)("%s: the same verdict and field", (_name, item) => {
    const checked = validateEvent(item, window);
    const parsed = counterEventSchema.safeParse(item);
    expect(parsed.success).toBe(checked.isValid);
    if (!checked.isValid && !parsed.success) {
      const fields = parsed.error.issues.map((issue) => [...issue.path, ...(issue.code === "unrecognized_keys" ? [issue.keys[0]] : [])].join("."));
      expect(fields).toContain(checked.field);
    }
  });
});
