-- What the poller's change signal (Pulsar: the consumer-metrics scrape) is doing, for the Clusters page.
ALTER TABLE "cluster" ADD COLUMN "change_signal" JSONB;
