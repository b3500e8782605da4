-- Violations name the workers that were inside the key (nullable: null on every other row, and
-- adding a nullable column without a default rewrites nothing).
-- AlterTable
ALTER TABLE "exclusivity_event" ADD COLUMN "others_inside" JSONB;

-- Per-minute counts from clients in "violations+counts" mode: the primary key is the
-- idempotency key of a re-sent minute.
-- CreateTable
CREATE TABLE "exclusivity_count" (
    "client_id" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "service" TEXT NOT NULL,
    "subscription" TEXT NOT NULL DEFAULT '',
    "topic" TEXT NOT NULL DEFAULT '',
    "worker" TEXT NOT NULL,
    "increments" INTEGER NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exclusivity_count_pkey" PRIMARY KEY ("client_id","minute","service","subscription","topic")
);

-- CreateIndex
CREATE INDEX "exclusivity_count_minute_idx" ON "exclusivity_count"("minute");
