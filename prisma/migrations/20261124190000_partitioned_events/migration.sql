-- exclusivity_event becomes a partitioned table: first by is_violation (two sub-trees, so that
-- violations, the rare and valuable rows, keep their own retention), then by observed_at: the
-- violations by UTC day, the other events by UTC hour. Retention drops whole partitions (no
-- DELETE, no vacuum debt), and inserts touch only the current hour's indexes. Prisma cannot declare partitioning: schema.prisma
-- describes the parent table, this script builds the tree.
--
-- Idempotency: a unique key on a partitioned table must contain every partition-key column, so
-- the primary key is (observed_at, event_id, is_violation). A re-sent event (same id, same
-- observedAt, same counter) writes nothing, as long as the partition of its time is kept. Leading with
-- observed_at puts each insert near the right edge of the index (rows arrive in time order),
-- where the old unique index on the random event_id sent each insert to a random page.
--
-- Every row of the old table is copied. The row number column `id` goes (reads break ties on
-- event_id), and so does the observed_at index (the primary key leads with observed_at).

-- One transaction: a failure anywhere leaves the old table as it was.
BEGIN;

ALTER TABLE "exclusivity_event" RENAME TO "exclusivity_event_unpartitioned";

-- PostgreSQL 18 names each NOT NULL constraint after its table and column, and a renamed table
-- keeps those names: dropped here (a catalog change), so that the new table gets the same names a
-- fresh database has.
ALTER TABLE "exclusivity_event_unpartitioned" ALTER COLUMN "event_id" DROP NOT NULL, ALTER COLUMN "key" DROP NOT NULL, ALTER COLUMN "counter" DROP NOT NULL,
    ALTER COLUMN "service" DROP NOT NULL, ALTER COLUMN "worker" DROP NOT NULL, ALTER COLUMN "observed_at" DROP NOT NULL,
    ALTER COLUMN "received_at" DROP NOT NULL, ALTER COLUMN "source" DROP NOT NULL;

CREATE TABLE "exclusivity_event" (
    "event_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "counter" INTEGER NOT NULL,
    "is_violation" BOOLEAN NOT NULL,
    "service" TEXT NOT NULL,
    "worker" TEXT NOT NULL,
    "topic" TEXT,
    "subscription" TEXT,
    "partition" INTEGER,
    "trace_id" TEXT,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" "ingest_source" NOT NULL DEFAULT 'HTTP',
    "attributes" JSONB,
    "others_inside" JSONB,
    "lock" TEXT
) PARTITION BY LIST ("is_violation");

CREATE TABLE "exclusivity_event_violation" PARTITION OF "exclusivity_event" FOR VALUES IN (true) PARTITION BY RANGE ("observed_at");
CREATE TABLE "exclusivity_event_other" PARTITION OF "exclusivity_event" FOR VALUES IN (false) PARTITION BY RANGE ("observed_at");

-- Nothing accepted is lost: an event outside every partition created so far lands here, and
-- creating the partition of its day or hour later moves it there.
CREATE TABLE "exclusivity_event_violation_default" PARTITION OF "exclusivity_event_violation" DEFAULT;
CREATE TABLE "exclusivity_event_other_default" PARTITION OF "exclusivity_event_other" DEFAULT;

-- Creates the partitions (UTC) of both sub-trees covering every day in [from_day, to_day] that
-- have none yet, and returns how many it created: a day partition of violations,
-- exclusivity_event_violation_pYYYYMMDD, and 24 hour partitions of the other events,
-- exclusivity_event_other_pYYYYMMDDHH. The bulk is hourly so that the partition being written,
-- and its key index, stays small whatever the store holds (each insert then finds its index pages
-- in memory). Violations, a fraction of a percent of the events, stay daily (fewer partitions to
-- plan, and a day of them is small). Rows of such a range already in the DEFAULT partition are
-- moved into the new partition in the same transaction (PostgreSQL refuses to add a partition
-- whose rows sit in the default one). Called by this migration and by the worker
-- (lib/retention/ensure-event-partitions.ts), which creates days ahead. The body is an E'' string
-- with \x3b for each semicolon: the offline migration path (@prisma/adapter-pg's executeScript)
-- splits a script at every semicolon, even inside a dollar-quoted body.
CREATE FUNCTION "baton_ensure_event_partitions"(from_day date, to_day date) RETURNS integer
LANGUAGE plpgsql AS E'
DECLARE
  lower_bound timestamptz\x3b
  upper_bound timestamptz\x3b
  sub_tree text\x3b
  step interval\x3b
  name_format text\x3b
  leaf text\x3b
  default_leaf text\x3b
  created integer := 0\x3b
  has_rows boolean\x3b
BEGIN
  FOREACH sub_tree IN ARRAY ARRAY[''exclusivity_event_violation'', ''exclusivity_event_other''] LOOP
    IF sub_tree = ''exclusivity_event_violation'' THEN
      step := interval ''1 day''\x3b
      name_format := ''YYYYMMDD''\x3b
    ELSE
      step := interval ''1 hour''\x3b
      name_format := ''YYYYMMDDHH24''\x3b
    END IF\x3b
    default_leaf := sub_tree || ''_default''\x3b
    FOR lower_bound IN SELECT generate_series(from_day::timestamp AT TIME ZONE ''UTC'', (to_day + 1)::timestamp AT TIME ZONE ''UTC'' - step, step) LOOP
      leaf := sub_tree || ''_p'' || to_char(lower_bound AT TIME ZONE ''UTC'', name_format)\x3b
      CONTINUE WHEN to_regclass(quote_ident(leaf)) IS NOT NULL\x3b
      upper_bound := lower_bound + step\x3b
      EXECUTE format(''SELECT EXISTS (SELECT 1 FROM %I WHERE observed_at >= $1 AND observed_at < $2)'', default_leaf)
        INTO has_rows USING lower_bound, upper_bound\x3b
      IF has_rows THEN
        EXECUTE format(''CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)'', leaf, sub_tree)\x3b
        EXECUTE format(''WITH moved AS (DELETE FROM %I WHERE observed_at >= $1 AND observed_at < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved'', default_leaf, leaf)
          USING lower_bound, upper_bound\x3b
        EXECUTE format(''ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)'', sub_tree, leaf, lower_bound, upper_bound)\x3b
      ELSE
        EXECUTE format(''CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)'', leaf, sub_tree, lower_bound, upper_bound)\x3b
      END IF\x3b
      created := created + 1\x3b
    END LOOP\x3b
  END LOOP\x3b
  RETURN created\x3b
END
';

-- The days the old rows cover, and today through three days ahead (the worker keeps that lead).
SELECT "baton_ensure_event_partitions"(
  least((SELECT min(observed_at) AT TIME ZONE 'UTC' FROM "exclusivity_event_unpartitioned")::date, (now() AT TIME ZONE 'UTC')::date),
  (now() AT TIME ZONE 'UTC')::date + 3
);

-- Indexes are built after the copy: one sorted build per partition is much cheaper than
-- maintaining them row by row.
INSERT INTO "exclusivity_event" ("event_id", "key", "counter", "is_violation", "service", "worker", "topic", "subscription", "partition", "trace_id", "observed_at", "received_at", "source", "attributes", "others_inside", "lock")
SELECT "event_id", "key", "counter", "counter" > 0, "service", "worker", "topic", "subscription", "partition", "trace_id", "observed_at", "received_at", "source", "attributes", "others_inside", "lock"
FROM "exclusivity_event_unpartitioned";

DROP TABLE "exclusivity_event_unpartitioned";

ALTER TABLE "exclusivity_event" ADD CONSTRAINT "exclusivity_event_pkey" PRIMARY KEY ("observed_at", "event_id", "is_violation");

-- CreateIndex
CREATE INDEX "exclusivity_event_key_time_idx" ON "exclusivity_event"("key", "observed_at");

-- CreateIndex
CREATE INDEX "exclusivity_event_violation_time_idx" ON "exclusivity_event"("observed_at") WHERE (counter > 0);

-- CreateIndex
CREATE INDEX "exclusivity_event_violation_service_time_idx" ON "exclusivity_event"("service", "observed_at") WHERE (counter > 0);

-- CreateIndex
CREATE INDEX "exclusivity_event_violation_event_id_idx" ON "exclusivity_event"("event_id") WHERE (counter > 0);

-- The per-hour rollup, maintained by the same statements as the per-minute one (ingest of events
-- and of counts): a 7-day chart reads 168 hours per series instead of 10,080 minutes. Filled from
-- the per-minute rollup for everything stored so far.
-- CreateTable
CREATE TABLE "violation_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "service" TEXT NOT NULL,
    "subscription" TEXT NOT NULL DEFAULT '',
    "violations" INTEGER NOT NULL DEFAULT 0,
    "events" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "violation_hour_pkey" PRIMARY KEY ("bucket","service","subscription")
);

INSERT INTO "violation_hour" ("bucket", "service", "subscription", "violations", "events")
SELECT date_trunc('hour', "bucket", 'UTC'), "service", "subscription", sum("violations"), sum("events")
FROM "violation_minute"
GROUP BY 1, 2, 3;

COMMIT;
