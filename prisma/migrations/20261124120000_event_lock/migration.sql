-- A counter event may name the lock its work ran under (cluster and lock key). Nullable: old
-- clients send no lock, and the column costs nothing on their rows.

-- AlterTable
ALTER TABLE "exclusivity_event" ADD COLUMN     "lock" TEXT;
