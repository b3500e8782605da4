-- Key_Shared hash-range splits with their validity intervals: the history the violations' key
-- owners are computed from. One row per split of a subscription partition.

-- CreateTable
CREATE TABLE "key_shared_range_split" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" INTEGER NOT NULL,
    "resource_id" BIGINT NOT NULL,
    "signature" TEXT NOT NULL,
    "split" JSONB NOT NULL,
    "changed_after" TIMESTAMPTZ(3),
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),

    CONSTRAINT "key_shared_range_split_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "key_shared_range_split_resource_time_key" ON "key_shared_range_split"("resource_id", "valid_from");

-- CreateIndex
CREATE INDEX "key_shared_range_split_open_idx" ON "key_shared_range_split"("resource_id") WHERE (valid_to IS NULL);

-- AddForeignKey
ALTER TABLE "key_shared_range_split" ADD CONSTRAINT "key_shared_range_split_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "key_shared_range_split" ADD CONSTRAINT "key_shared_range_split_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "held_resource"("id") ON DELETE CASCADE ON UPDATE CASCADE;
