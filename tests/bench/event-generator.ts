import { randomUUID } from "node:crypto";

import { compactIdHex } from "@/lib/ingest/compact-id";

// Realistic counter events for the benchmark: random UUID-shaped ids (what the client library
// sends, and the worst case for the unique index: random insert positions), 20 services, 8
// subscriptions, 100,000 keys, 2% violations, small attributes on one event in ten.
//
// Event n is a pure function of n (and of this run; its time is the first time it was made), so the duplicates phase regenerates
// already-sent events instead of keeping a million strings alive: retaining them cost the
// generator five times its own work in garbage collection.

export type BenchEvent = {
  id: string;
  key: string;
  counter: number;
  service: string;
  worker: string;
  topic: string;
  subscription: string;
  partition: number;
  traceId: string;
  observedAt: string;
  attributes: string | null;
};

let sequence = 0;

/** The next unused event number. */
export function nextEventNumber(): number {
  return sequence++;
}

/** A 32-bit integer hash that is a bijection (so distinct inputs stay distinct). */
function mix32(value: number): number {
  let x = value >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const SALTS = Array.from({ length: 4 }, () => Math.floor(Math.random() * 2 ** 32));
const hex8 = (value: number) => value.toString(16).padStart(8, "0");

/**
 * A UUID-shaped id that looks random but is the same for the same n (within a run), cheaply:
 * its first 8 hex digits are a bijection of n, so ids never collide.
 */
function eventId(n: number): string {
  const a = hex8(mix32(n ^ SALTS[0]!));
  const b = hex8(mix32(n ^ SALTS[1]!));
  const c = hex8(mix32(n ^ SALTS[2]!));
  const d = hex8(mix32(n ^ SALTS[3]!));
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-a${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
}

// Building a million events must stay cheap (it happens before each phase): the time string is
// made once per millisecond, and trace ids (not indexed, so their content does not matter to
// the database) come from a pool.
let isoTimeMs = 0;
let isoTime = "";
function isoOf(ms: number): string {
  if (ms !== isoTimeMs) {
    isoTimeMs = ms;
    isoTime = new Date(ms).toISOString();
  }
  return isoTime;
}

// The time event n was first made, by n (numbers are dense from 0): a re-sent event carries its
// first time, as a client's retry does, since the store deduplicates on id and time together.
let firstMadeMs = new Float64Array(1 << 20);
function firstMadeAt(n: number): number {
  if (n >= firstMadeMs.length) {
    const grown = new Float64Array(Math.max(n + 1, firstMadeMs.length * 2));
    grown.set(firstMadeMs);
    firstMadeMs = grown;
  }
  if (firstMadeMs[n] === 0) firstMadeMs[n] = Date.now();
  return firstMadeMs[n]!;
}
const TRACE_IDS = Array.from({ length: 4_096 }, () => randomUUID().replaceAll("-", ""));

/** Event number n (a new one by default), observed when it was first made. */
export function makeBenchEvent(n: number = nextEventNumber()): BenchEvent {
  return buildEvent(n, isoOf(firstMadeAt(n)));
}

function buildEvent(n: number, observedAt: string): BenchEvent {
  const service = `service-${n % 20}`;
  return {
    id: eventId(n),
    key: `user-${(n * 7_919) % 100_000}`,
    counter: n % 50 === 0 ? 1 + (n % 3) : 0,
    service,
    worker: `${service}-pod-${n % 16}`,
    topic: `persistent://acme/${service}/events`,
    subscription: `${service}-sub-${n % 8}`,
    partition: n % 12,
    traceId: TRACE_IDS[n % TRACE_IDS.length]!,
    observedAt,
    attributes: n % 10 === 0 ? `{"attempt":${1 + (n % 3)},"region":"eu-west-1","handler":"checkout-reminder"}` : null,
  };
}

/** The event as one JSON object (every value is plain ASCII without quotes: no escaping needed). */
export function toJson(event: BenchEvent): string {
  return (
    `{"id":"${event.id}","key":"${event.key}","counter":${event.counter},"service":"${event.service}","worker":"${event.worker}",` +
    `"topic":"${event.topic}","subscription":"${event.subscription}","partition":${event.partition},"traceId":"${event.traceId}",` +
    `"observedAt":"${event.observedAt}"${event.attributes ? `,"attributes":${event.attributes}` : ""}}`
  );
}

export const COPY_COLUMNS =
  "(event_id, key, counter, is_violation, service, worker, topic, subscription, partition, trace_id, observed_at, source, attributes)";

/** The columns of the layout before partitioning (no is_violation), for the old-layout figures. */
export const OLD_LAYOUT_COPY_COLUMNS = "(event_id, key, counter, service, worker, topic, subscription, partition, trace_id, observed_at, source, attributes)";

/**
 * The event as one line of COPY text format, in COPY_COLUMNS (or OLD_LAYOUT_COPY_COLUMNS) order
 * (\N is NULL). In today's layout the ids are packed bytes (bytea's hex input, its backslash
 * doubled for COPY); in the old one, text.
 */
export function toCopyLine(event: BenchEvent, layout: "partitioned" | "old" = "partitioned"): string {
  if (layout === "old") {
    return [
      event.id,
      event.key,
      event.counter,
      event.service,
      event.worker,
      event.topic,
      event.subscription,
      event.partition,
      event.traceId,
      event.observedAt,
      "HTTP",
      event.attributes ?? "\\N",
    ].join("\t");
  }
  const id = `\\\\x${compactIdHex(event.id)}`;
  const traceId = `\\\\x${compactIdHex(event.traceId)}`;
  return [
    id,
    event.key,
    event.counter,
    event.counter > 0 ? "t" : "f",
    event.service,
    event.worker,
    event.topic,
    event.subscription,
    event.partition,
    traceId,
    event.observedAt,
    "HTTP",
    event.attributes ?? "\\N",
  ].join("\t");
}

/**
 * Event number n of a stored history: observed at `observedMs`, a violation (counter 1) when
 * `isViolation`, otherwise as makeBenchEvent makes it. For loading millions of rows spread over days.
 */
export function makeStoredEvent(n: number, observedMs: number, isViolation: boolean): BenchEvent {
  const event = buildEvent(n, new Date(observedMs).toISOString());
  event.counter = isViolation ? 1 : 0;
  return event;
}
