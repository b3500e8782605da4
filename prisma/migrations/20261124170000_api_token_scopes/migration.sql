-- A token's scopes: "ingest" (write counter events and deployments), "read" (the read API).
-- Tokens made before scopes existed were ingest tokens, and stay so.

-- AlterTable
ALTER TABLE "api_token" ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY['ingest']::TEXT[];
