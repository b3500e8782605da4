-- Alerting: alert incidents with their state history, the notification outbox with each
-- delivery attempt, and the lease of the one evaluator across Baton processes.

-- CreateTable
CREATE TABLE "alert" (
    "id" BIGSERIAL NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "labels" JSONB NOT NULL,
    "severity" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "link" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "active_at" TIMESTAMPTZ(3) NOT NULL,
    "fired_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "last_sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_transition" (
    "id" BIGSERIAL NOT NULL,
    "alert_id" BIGINT NOT NULL,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_transition_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_notification" (
    "id" BIGSERIAL NOT NULL,
    "alert_id" BIGINT NOT NULL,
    "receiver" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "delivered_at" TIMESTAMPTZ(3),
    "last_error" TEXT,

    CONSTRAINT "alert_notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_delivery" (
    "id" BIGSERIAL NOT NULL,
    "notification_id" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,

    CONSTRAINT "alert_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_evaluator_lease" (
    "id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL,
    "evaluator_id" TEXT NOT NULL,
    "acquired_at" TIMESTAMPTZ(3) NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_evaluator_lease_pkey" PRIMARY KEY ("id")
);


-- CreateIndex
CREATE INDEX "alert_fingerprint_idx" ON "alert"("fingerprint", "active_at");

-- CreateIndex
CREATE INDEX "alert_state_idx" ON "alert"("state", "active_at");

-- CreateIndex
CREATE INDEX "alert_transition_alert_idx" ON "alert_transition"("alert_id", "at");

-- CreateIndex
CREATE INDEX "alert_notification_due_idx" ON "alert_notification"("delivered_at", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_notification_alert_idx" ON "alert_notification"("alert_id");

-- CreateIndex
CREATE INDEX "alert_delivery_notification_idx" ON "alert_delivery"("notification_id");


-- AddForeignKey
ALTER TABLE "alert_transition" ADD CONSTRAINT "alert_transition_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alert"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_notification" ADD CONSTRAINT "alert_notification_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alert"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "alert_notification"("id") ON DELETE CASCADE ON UPDATE CASCADE;
