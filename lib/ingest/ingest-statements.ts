import "server-only";

import { EVENT_COPY_COLUMNS } from "@/lib/ingest/event-copy-data";

// The SQL of the ingest write (lib/ingest/write-events.ts). Values are bind parameters or COPY
// data; nothing is interpolated but these constants.

/** A batch of new events goes straight into the table: the fast path. */
export const COPY_INTO_EVENTS_SQL = `COPY exclusivity_event ${EVENT_COPY_COLUMNS} FROM STDIN (FORMAT binary)`;

/**
 * The rollup rows of a batch whose events were all new (lib/ingest/minute-counts.ts): added to
 * violation_minute, and summed by hour into violation_hour, in key order (two batches sharing
 * minutes wait for each other instead of deadlocking).
 */
export const ADD_MINUTE_COUNTS_SQL = `
WITH minute_counts AS (
  SELECT to_timestamp(bucket_ms / 1000.0) AS bucket, service, subscription, violations, events
  FROM unnest($1::float8[], $2::text[], $3::text[], $4::int4[], $5::int4[]) AS t(bucket_ms, service, subscription, violations, events)
),
minute_rollup AS (
  INSERT INTO violation_minute AS r (bucket, service, subscription, violations, events)
  SELECT bucket, service, subscription, violations, events FROM minute_counts
  ORDER BY bucket, service COLLATE "C", subscription COLLATE "C"
  ON CONFLICT (bucket, service, subscription)
  DO UPDATE SET violations = r.violations + excluded.violations, events = r.events + excluded.events
)
INSERT INTO violation_hour AS r (bucket, service, subscription, violations, events)
SELECT date_trunc('hour', bucket, 'UTC'), service, subscription, sum(violations), sum(events)
FROM minute_counts
GROUP BY 1, service, subscription
ORDER BY 1, service COLLATE "C", subscription COLLATE "C"
ON CONFLICT (bucket, service, subscription)
DO UPDATE SET violations = r.violations + excluded.violations, events = r.events + excluded.events`;

// The path of a batch with events Baton already has (a client's retry): the batch is staged in
// a temporary table of the session, then inserted with ON CONFLICT DO NOTHING, the rollups
// counting only the rows inserted now (RETURNING).
const STAGING_TABLE = "baton_ingest_staging";

/** Once per session; emptied at every commit. */
export const CREATE_STAGING_SQL = `CREATE TEMPORARY TABLE IF NOT EXISTS ${STAGING_TABLE}
  (LIKE exclusivity_event INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`;

export const COPY_INTO_STAGING_SQL = `COPY ${STAGING_TABLE} ${EVENT_COPY_COLUMNS} FROM STDIN (FORMAT binary)`;

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

export const INSERT_STAGED_SQL = `
WITH inserted AS (
  INSERT INTO exclusivity_event ${EVENT_COPY_COLUMNS}
  SELECT event_id, key, counter, is_violation, service, worker, topic, subscription, partition, trace_id, observed_at, source, attributes, others_inside, lock
  FROM ${STAGING_TABLE}
  ORDER BY observed_at, event_id
  ON CONFLICT (observed_at, event_id, is_violation) DO NOTHING
  RETURNING observed_at, service, subscription, counter
),
${rollupCte("rollup", "violation_minute", "minute")},
${rollupCte("hourly_rollup", "violation_hour", "hour")}
SELECT count(*)::int AS inserted FROM inserted`;
