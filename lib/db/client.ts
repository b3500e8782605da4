import "server-only";

import { PrismaPg } from "@prisma/adapter-pg";

import { getConfig } from "@/lib/config";
import { resolveDatabaseUrl } from "@/lib/db/database-url";
import { PrismaClient } from "@/lib/db/generated/client";

export type Db = PrismaClient;

// One client per process. Next's dev server re-evaluates modules on every edit, so the
// client lives on globalThis to avoid a new pool per reload.
const globalForDb = globalThis as unknown as { batonDb?: PrismaClient };

export function createDb(databaseUrl: string): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

/** The process's Prisma client, on DATABASE_URL or the embedded PostgreSQL. */
export function getDb(): PrismaClient {
  globalForDb.batonDb ??= createDb(resolveDatabaseUrl(getConfig()));
  return globalForDb.batonDb;
}
