-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "cluster_kind" AS ENUM ('PULSAR', 'REDIS', 'ZOOKEEPER', 'ETCD', 'KUBERNETES');

-- CreateEnum
CREATE TYPE "resource_kind" AS ENUM ('PULSAR_SUBSCRIPTION_PARTITION', 'REDIS_LOCK', 'ZOOKEEPER_LOCK', 'ETCD_LOCK', 'KUBERNETES_LEASE');

-- CreateEnum
CREATE TYPE "change_kind" AS ENUM ('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP', 'CONSUMERS_CHANGED', 'RANGES_MOVED');

-- CreateEnum
CREATE TYPE "change_cause" AS ENUM ('CLIENT', 'BROKER', 'UNKNOWN');

-- CreateEnum
CREATE TYPE "ingest_source" AS ENUM ('HTTP', 'PULSAR_TOPIC');

-- CreateTable
CREATE TABLE "cluster" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "cluster_kind" NOT NULL DEFAULT 'PULSAR',
    "admin_url" TEXT NOT NULL,
    "scope" JSONB NOT NULL DEFAULT '{}',
    "poll_interval_ms" INTEGER NOT NULL,
    "is_configured" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "held_resource" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" INTEGER NOT NULL,
    "kind" "resource_kind" NOT NULL,
    "resource_key" TEXT NOT NULL,
    "tenant" TEXT,
    "namespace" TEXT,
    "topic" TEXT,
    "partition" INTEGER,
    "subscription" TEXT,
    "subscription_type" TEXT,
    "is_durable" BOOLEAN NOT NULL DEFAULT true,
    "holder" TEXT,
    "holder_since" TIMESTAMPTZ(3),
    "consumers" JSONB NOT NULL DEFAULT '[]',
    "hash_ranges" JSONB,
    "backlog" BIGINT,
    "msg_rate_out" DOUBLE PRECISION,
    "recent_samples" JSONB NOT NULL DEFAULT '[]',
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_observed_at" TIMESTAMPTZ(3),
    "stale_since" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "gone_at" TIMESTAMPTZ(3),
    "last_change_at" TIMESTAMPTZ(3),

    CONSTRAINT "held_resource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "holder_change" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" INTEGER NOT NULL,
    "resource_id" BIGINT NOT NULL,
    "kind" "change_kind" NOT NULL,
    "cause" "change_cause" NOT NULL DEFAULT 'CLIENT',
    "from_holder" TEXT,
    "to_holder" TEXT,
    "old_seen_at" TIMESTAMPTZ(3),
    "new_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "is_during_gap" BOOLEAN NOT NULL DEFAULT false,
    "details" JSONB NOT NULL DEFAULT '{}',
    "poller_epoch" BIGINT NOT NULL,

    CONSTRAINT "holder_change_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "poll_run" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "cycle_ms" INTEGER,
    "topic_count" INTEGER NOT NULL,
    "resource_count" INTEGER NOT NULL,
    "request_count" INTEGER NOT NULL,
    "error_count" INTEGER NOT NULL,
    "change_count" INTEGER NOT NULL DEFAULT 0,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "poller_epoch" BIGINT NOT NULL,
    "poller_id" TEXT NOT NULL,

    CONSTRAINT "poll_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "poller_lease" (
    "cluster_id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL,
    "poller_id" TEXT NOT NULL,
    "acquired_at" TIMESTAMPTZ(3) NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "poller_lease_pkey" PRIMARY KEY ("cluster_id")
);

-- CreateTable
CREATE TABLE "exclusivity_event" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "counter" INTEGER NOT NULL,
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

    CONSTRAINT "exclusivity_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "violation_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "service" TEXT NOT NULL,
    "subscription" TEXT NOT NULL DEFAULT '',
    "violations" INTEGER NOT NULL DEFAULT 0,
    "events" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "violation_minute_pkey" PRIMARY KEY ("bucket","service","subscription")
);

-- CreateTable
CREATE TABLE "deployment" (
    "id" BIGSERIAL NOT NULL,
    "external_id" TEXT,
    "service" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "environment" TEXT NOT NULL DEFAULT 'production',
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "link" TEXT,
    "description" TEXT,
    "attributes" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_token" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dead_letter" (
    "id" BIGSERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "error" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_letter_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "cluster_name_key" ON "cluster"("name");

-- CreateIndex
CREATE INDEX "held_resource_scope_idx" ON "held_resource"("cluster_id", "tenant", "namespace", "topic", "subscription");

-- CreateIndex
CREATE INDEX "held_resource_holder_idx" ON "held_resource"("holder");

-- CreateIndex
CREATE UNIQUE INDEX "held_resource_cluster_id_resource_key_key" ON "held_resource"("cluster_id", "resource_key");

-- CreateIndex
CREATE INDEX "holder_change_resource_time_idx" ON "holder_change"("resource_id", "new_seen_at");

-- CreateIndex
CREATE INDEX "holder_change_cluster_time_idx" ON "holder_change"("cluster_id", "new_seen_at");

-- CreateIndex
CREATE INDEX "holder_change_to_idx" ON "holder_change"("to_holder", "new_seen_at");

-- CreateIndex
CREATE INDEX "holder_change_from_idx" ON "holder_change"("from_holder", "new_seen_at");

-- CreateIndex
CREATE UNIQUE INDEX "holder_change_once_key" ON "holder_change"("resource_id", "kind", "new_seen_at");

-- CreateIndex
CREATE INDEX "poll_run_cluster_time_idx" ON "poll_run"("cluster_id", "started_at");

-- CreateIndex
CREATE UNIQUE INDEX "exclusivity_event_event_id_key" ON "exclusivity_event"("event_id");

-- CreateIndex
CREATE INDEX "exclusivity_event_time_idx" ON "exclusivity_event"("observed_at");

-- CreateIndex
CREATE INDEX "exclusivity_event_key_time_idx" ON "exclusivity_event"("key", "observed_at");

-- CreateIndex
CREATE INDEX "exclusivity_event_service_time_idx" ON "exclusivity_event"("service", "observed_at");

-- CreateIndex
CREATE INDEX "exclusivity_event_sub_time_idx" ON "exclusivity_event"("topic", "subscription", "partition", "observed_at");

-- CreateIndex
CREATE INDEX "violation_minute_bucket_idx" ON "violation_minute"("bucket");

-- CreateIndex
CREATE UNIQUE INDEX "deployment_external_id_key" ON "deployment"("external_id");

-- CreateIndex
CREATE INDEX "deployment_service_time_idx" ON "deployment"("service", "started_at");

-- CreateIndex
CREATE INDEX "deployment_time_idx" ON "deployment"("started_at");

-- CreateIndex
CREATE UNIQUE INDEX "api_token_name_key" ON "api_token"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_token_hash_key" ON "api_token"("token_hash");

-- CreateIndex
CREATE INDEX "dead_letter_time_idx" ON "dead_letter"("received_at");

-- CreateIndex
CREATE UNIQUE INDEX "dead_letter_once_key" ON "dead_letter"("source", "message_id");

-- AddForeignKey
ALTER TABLE "held_resource" ADD CONSTRAINT "held_resource_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "holder_change" ADD CONSTRAINT "holder_change_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "holder_change" ADD CONSTRAINT "holder_change_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "held_resource"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "poll_run" ADD CONSTRAINT "poll_run_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "poller_lease" ADD CONSTRAINT "poller_lease_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
