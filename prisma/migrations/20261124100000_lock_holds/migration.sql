-- Locks beside Pulsar subscriptions. A held resource keeps the token or session of its holder,
-- when the hold expires, and the details of its kind. A holder change says how the previous hold
-- ended. (No semicolons in these comments: the migration runner splits the script on them.)

-- CreateEnum
CREATE TYPE "hold_ending" AS ENUM ('RELEASED', 'EXPIRED', 'TAKEN_OVER');

-- AlterTable
ALTER TABLE "held_resource" ADD COLUMN     "details" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "holder_token" TEXT;

-- AlterTable
ALTER TABLE "holder_change" ADD COLUMN     "ending" "hold_ending";
