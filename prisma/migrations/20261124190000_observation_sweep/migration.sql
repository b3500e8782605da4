-- The latest full cycle per cluster and resource kind: held_resource rows are then written only
-- when something about them changed, and their effective last observation is derived from it.

-- CreateTable
CREATE TABLE "observation_sweep" (
    "cluster_id" INTEGER NOT NULL,
    "kind" "resource_kind" NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "observation_sweep_pkey" PRIMARY KEY ("cluster_id","kind")
);

-- AddForeignKey
ALTER TABLE "observation_sweep" ADD CONSTRAINT "observation_sweep_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
