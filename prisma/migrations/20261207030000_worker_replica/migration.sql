-- The worker replicas of a fleet (lib/poller/fleet/): who they are and their last heartbeat, for
-- the pages and /api/health. Liveness itself is a shared advisory lock each replica holds on its
-- lock connection (pg_locks counts them): a row here only describes a replica.
CREATE TABLE "worker_replica" (
    "replica_id" TEXT NOT NULL,
    "fleet_key" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_count" INTEGER NOT NULL DEFAULT 0,
    "lock_pid" INTEGER,
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "worker_replica_pkey" PRIMARY KEY ("replica_id")
);
