import "server-only";

import type pg from "pg";

import { copyFromStdin } from "@/lib/db/copy-from-stdin";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import { toEventCopyData } from "@/lib/ingest/event-copy-data";
import type { IngestDb } from "@/lib/ingest/ingest-pool";
import { ADD_MINUTE_COUNTS_SQL, COPY_INTO_EVENTS_SQL, COPY_INTO_STAGING_SQL, CREATE_STAGING_SQL, INSERT_STAGED_SQL } from "@/lib/ingest/ingest-statements";
import { countByMinute } from "@/lib/ingest/minute-counts";
import type { IngestSource, ValidEvent } from "@/lib/ingest/types";

// The hot path is raw SQL through pg, not Prisma, one transaction per batch, the rows sent as
// binary COPY data (lib/ingest/event-copy-data.ts): no text for the server to parse, no literals
// for Node to build and escape. Two paths (lib/ingest/ingest-statements.ts):
// - new events (nearly every batch): COPY straight into exclusivity_event, then one statement
//   adding the batch's minute counts (counted in Node) to violation_minute and violation_hour:
//   what PostgreSQL does is, within a small rollup statement, what a raw COPY of the rows does;
// - a batch holding an event Baton already has (a client re-sending): the COPY fails on the
//   primary key, the transaction rolls back, and the batch is staged in a temporary table and
//   inserted with ON CONFLICT DO NOTHING, the rollups counting the rows inserted now.
// `npm run bench:ingest` measures it against a raw COPY (docs/ingest.md, "Where the time goes").
// Prisma's createMany would bind every value as its own parameter (PostgreSQL allows 65,535)
// and could not tell which rows were new.
//
// Invariants:
// - One transaction per batch: a failure anywhere (the COPY, an event row, a rollup, the
//   connection) writes nothing of the batch.
// - violation_minute and violation_hour count only rows inserted now, so re-sent events change
//   nothing, and an hour's row is always the sum of its minutes' rows.
// - The idempotency key is the table's primary key (observed_at, event_id, is_violation): a
//   unique key of a partitioned table must hold every partition-key column. A re-sent event
//   carries the same id, time and counter; the same id at another time is another event.
//   Validation has already dropped ids repeated within the batch.
// - Rows go in primary-key order and rollup rows in key order, so two batches that share events
//   or minutes wait for each other instead of deadlocking.
// - The staging table lives as long as the session: the connection must be Baton's own (no
//   pooler in transaction mode in between).

/** Primary-key violation: an event of the batch is already stored. */
const UNIQUE_VIOLATION = "23505";
/** The staging table missing from the session. */
const UNDEFINED_TABLE = "42P01";
/** Deadlock and serialization failures, and a session without its staging table: the batch did nothing and may simply run again. */
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001", UNDEFINED_TABLE]);
const MAX_ATTEMPTS = 3;

// Prepared once per connection: planning costs more than executing for small batches.
const ADD_MINUTE_COUNTS = "baton_add_minute_counts";
const INSERT_STAGED = "baton_insert_staged_events";

/** The connections whose session has the staging table (a new connection is a new object). */
const sessionsWithStaging = new WeakSet<pg.PoolClient>();

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Errors that mean a bug in Baton, not a database that failed: they stay 500s. */
function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;
}

/** `work` in a transaction; rolled back when it throws. Marks the client broken when even that fails. */
async function inTransaction<T>(client: pg.PoolClient, state: { isBroken: boolean }, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => (state.isBroken = true));
    throw error;
  }
}

/** Every event new: COPY into the table and the batch's minute counts. */
async function copyNewEvents(client: pg.PoolClient, events: readonly ValidEvent[], data: Buffer): Promise<number> {
  const copied = await copyFromStdin(client, COPY_INTO_EVENTS_SQL, [data]);
  const counts = countByMinute(events);
  await client.query({
    name: ADD_MINUTE_COUNTS,
    text: ADD_MINUTE_COUNTS_SQL,
    values: [counts.bucketMs, counts.services, counts.subscriptions, counts.violations, counts.events],
  });
  return copied;
}

/** Some events already stored: staged, then inserted where new. */
async function insertWhereNew(client: pg.PoolClient, data: Buffer): Promise<number> {
  if (!sessionsWithStaging.has(client)) {
    await client.query(CREATE_STAGING_SQL);
    sessionsWithStaging.add(client);
  }
  await copyFromStdin(client, COPY_INTO_STAGING_SQL, [data]);
  const result = await client.query<{ inserted: number }>({ name: INSERT_STAGED, text: INSERT_STAGED_SQL });
  return result.rows[0]!.inserted;
}

/** One attempt: the batch's transaction on one connection of the pool. */
async function writeBatch(db: IngestDb, events: readonly ValidEvent[], data: Buffer): Promise<number> {
  const client = await db.connect();
  const state = { isBroken: false };
  // A checked-out client has no listener of the pool's: a connection dying mid-batch would
  // otherwise be an unhandled 'error' event, which ends the process. The query under way fails too.
  const onConnectionError = () => (state.isBroken = true);
  client.on("error", onConnectionError);
  try {
    try {
      return await inTransaction(client, state, () => copyNewEvents(client, events, data));
    } catch (error) {
      if (sqlState(error) !== UNIQUE_VIOLATION || state.isBroken) throw error;
    }
    return await inTransaction(client, state, () => insertWhereNew(client, data));
  } catch (error) {
    // The session may have lost its staging table (a dropped temporary schema): made again next time.
    if (sqlState(error) === UNDEFINED_TABLE) sessionsWithStaging.delete(client);
    throw error;
  } finally {
    client.off("error", onConnectionError);
    client.release(state.isBroken);
  }
}

/**
 * Writes validated events and their rollup in one transaction; returns how many were new.
 * Throws DatabaseUnavailableError (nothing written) when the database fails.
 */
export async function writeEvents(db: IngestDb, events: readonly ValidEvent[], source: IngestSource): Promise<number> {
  if (events.length === 0) return 0;
  const data = toEventCopyData(events, source);
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeBatch(db, events, data);
    } catch (error) {
      if (isProgrammingError(error)) throw error;
      if (attempt < MAX_ATTEMPTS && RETRYABLE_SQLSTATES.has(sqlState(error) ?? "")) continue;
      console.error(`[baton] ingest: writing ${events.length} events failed (attempt ${attempt}); answering "database unavailable":`, error);
      throw new DatabaseUnavailableError(error);
    }
  }
}
