import "server-only";

import { numberArrayLiteral, textArrayLiteral } from "@/lib/ingest/array-literal";
import { compactIdHex } from "@/lib/ingest/compact-id";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import type { IngestDb } from "@/lib/ingest/ingest-pool";
import type { IngestSource, ValidEvent } from "@/lib/ingest/types";

/** A CTE adding the rows inserted now to one rollup table, per (UTC minute or hour, service, subscription). */
function rollupCte(name: string, table: "violation_minute" | "violation_hour", unit: "minute" | "hour"): string {
  return `${name} AS (
  INSERT INTO ${table} AS r (bucket, service, subscription, violations, events)
  SELECT bucket, service, subscription, count(*) FILTER (WHERE counter > 0), count(*)
  FROM (SELECT date_trunc('${unit}', observed_at, 'UTC') AS bucket, service, coalesce(subscription, '') AS subscription, counter FROM inserted) AS new_rows
  GROUP BY bucket, service, subscription
  ORDER BY bucket, service COLLATE "C", subscription COLLATE "C"
  ON CONFLICT (bucket, service, subscription)
  DO UPDATE SET violations = r.violations + excluded.violations, events = r.events + excluded.events
)`;
}

// The hot path is raw SQL through pg, not Prisma: one statement carries the whole batch as 13
// array parameters (unnest) and the source, inserts with ON CONFLICT DO NOTHING, and maintains the per-minute
// rollup from the rows it actually inserted (RETURNING), in one round trip and one implicit
// transaction. Prisma's createMany binds every value as its own parameter (PostgreSQL allows
// 65,535, so a 10,000-event request would need several statements) and the rollup would need
// the inserted rows back and more statements in an interactive transaction. The values are
// bind parameters; nothing is interpolated.
//
// Invariants:
// - One statement = one transaction: a failure anywhere (an event row, the rollup, the
//   connection) writes nothing of the batch.
// - violation_minute and violation_hour count only rows inserted now, so re-sent events change
//   nothing, and an hour's row is always the sum of its minutes' rows.
// - The idempotency key is the table's primary key (observed_at, event_id, is_violation): a
//   unique key of a partitioned table must hold every partition-key column. A re-sent event
//   carries the same id, time and counter; the same id at another time is another event.
// - Ids and trace ids travel as the hex of their packed bytes (lib/ingest/compact-id.ts) and
//   become bytea here with decode(), which costs the database less than packing them in SQL.
// - Rows are inserted in primary-key order and rollup rows upserted in key order, so two batches
//   that share events or minutes wait for each other instead of deadlocking.
const INSERT_EVENTS_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int4[], $9::text[], $10::float8[], $11::text[], $12::text[], $13::text[])
    AS t(event_id_hex, key, counter, service, worker, topic, subscription, partition, trace_id_hex, observed_ms, attributes, others_inside, lock)
),
inserted AS (
  INSERT INTO exclusivity_event (event_id, key, counter, is_violation, service, worker, topic, subscription, partition, trace_id, observed_at, source, attributes, others_inside, lock)
  SELECT decode(event_id_hex, 'hex'), key, counter, counter > 0, service, worker, topic, subscription, partition, decode(trace_id_hex, 'hex'), to_timestamp(observed_ms / 1000.0), $14::ingest_source, attributes::jsonb, others_inside::jsonb, lock
  FROM input
  ORDER BY observed_ms, event_id_hex COLLATE "C"
  ON CONFLICT (observed_at, event_id, is_violation) DO NOTHING
  RETURNING observed_at, service, subscription, counter
),
${rollupCte("rollup", "violation_minute", "minute")},
${rollupCte("hourly_rollup", "violation_hour", "hour")}
SELECT count(*)::int AS inserted FROM inserted`;

// Prepared once per connection: the plan of this statement costs more than executing it for
// small batches.
const STATEMENT_NAME = "baton_insert_exclusivity_events";

/** Deadlock and serialization failures: the batch did nothing and may simply run again. */
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001"]);
const MAX_ATTEMPTS = 3;

/** The batch as one array literal per column, in the order of the unnest() parameters. */
function toColumns(events: readonly ValidEvent[]): string[] {
  const n = events.length;
  const eventIds = new Array<string>(n);
  const keys = new Array<string>(n);
  const counters = new Array<number>(n);
  const services = new Array<string>(n);
  const workers = new Array<string>(n);
  const topics = new Array<string | null>(n);
  const subscriptions = new Array<string | null>(n);
  const partitions = new Array<number | null>(n);
  const traceIds = new Array<string | null>(n);
  const observedMs = new Array<number>(n);
  const attributes = new Array<string | null>(n);
  const othersInside = new Array<string | null>(n);
  const locks = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const event = events[i]!;
    eventIds[i] = compactIdHex(event.eventId);
    keys[i] = event.key;
    counters[i] = event.counter;
    services[i] = event.service;
    workers[i] = event.worker;
    topics[i] = event.topic;
    subscriptions[i] = event.subscription;
    partitions[i] = event.partition;
    traceIds[i] = event.traceId === null ? null : compactIdHex(event.traceId);
    observedMs[i] = event.observedAtMs;
    attributes[i] = event.attributesJson;
    othersInside[i] = event.othersInsideJson;
    locks[i] = event.lock;
  }
  return [
    textArrayLiteral(eventIds),
    textArrayLiteral(keys),
    numberArrayLiteral(counters),
    textArrayLiteral(services),
    textArrayLiteral(workers),
    textArrayLiteral(topics),
    textArrayLiteral(subscriptions),
    numberArrayLiteral(partitions),
    textArrayLiteral(traceIds),
    numberArrayLiteral(observedMs),
    textArrayLiteral(attributes),
    textArrayLiteral(othersInside),
    textArrayLiteral(locks),
  ];
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Errors that mean a bug in Baton, not a database that failed: they stay 500s. */
function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;
}

/**
 * Writes validated events and their rollup in one transaction; returns how many were new.
 * Throws DatabaseUnavailableError (nothing written) when the database fails.
 */
export async function writeEvents(db: IngestDb, events: readonly ValidEvent[], source: IngestSource): Promise<number> {
  if (events.length === 0) return 0;
  const values = [...toColumns(events), source];
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await db.query<{ inserted: number }>({ name: STATEMENT_NAME, text: INSERT_EVENTS_SQL, values });
      return result.rows[0]!.inserted;
    } catch (error) {
      if (isProgrammingError(error)) throw error;
      if (attempt < MAX_ATTEMPTS && RETRYABLE_SQLSTATES.has(sqlState(error) ?? "")) continue;
      console.error(`[baton] ingest: writing ${events.length} events failed (attempt ${attempt}); answering "database unavailable":`, error);
      throw new DatabaseUnavailableError(error);
    }
  }
}
