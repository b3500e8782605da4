-- Next in line: each holder change records the next holder Baton predicted from the state just
-- before it, and whether the change confirmed it. Both nullable: older rows and the changes no
-- prediction covers have neither.

-- CreateEnum
CREATE TYPE "prediction_outcome" AS ENUM ('CONFIRMED', 'WRONG', 'NOT_PREDICTED');

-- AlterTable
ALTER TABLE "holder_change" ADD COLUMN     "predicted_holder" TEXT,
ADD COLUMN     "prediction" "prediction_outcome";

-- CreateIndex
CREATE INDEX "holder_change_prediction_idx" ON "holder_change"("cluster_id", "prediction") WHERE (prediction IS NOT NULL);
