-- The ingest path pays for every index of exclusivity_event on every row. Reads that only look
-- at violations (counter > 0: a few percent of the rows) get partial indexes instead of full ones,
-- and indexes no query uses go.

-- No query reads events by subscription/partition (the drill-down matches leader changes from
-- holder_change's own indexes).
DROP INDEX "exclusivity_event_sub_time_idx";

-- Its readers (a deployment's violations, a service's top lists) filter on counter > 0.
DROP INDEX "exclusivity_event_service_time_idx";

-- The primary key (bucket, service, subscription) already serves range scans on bucket.
DROP INDEX "violation_minute_bucket_idx";

-- CreateIndex
CREATE INDEX "exclusivity_event_violation_time_idx" ON "exclusivity_event"("observed_at") WHERE (counter > 0);

-- CreateIndex
CREATE INDEX "exclusivity_event_violation_service_time_idx" ON "exclusivity_event"("service", "observed_at") WHERE (counter > 0);
