import "server-only";

import pg from "pg";

import { getConfig } from "@/lib/config";
import { resolveDatabaseUrl } from "@/lib/db/database-url";

/** What the ingest write needs: a pg Pool (a connection of its own for each batch's transaction, and plain queries). */
export type IngestDb = Pick<pg.Pool, "query" | "connect">;

// Connections for the ingest write: enough to keep PostgreSQL busy while requests parse and
// validate, few enough not to thrash a small machine (measured in tests/bench).
const INGEST_POOL_SIZE = 6;

// A write that takes longer than this is stuck (locks, a dying server): fail it so the client
// retries, instead of holding the request open.
const STATEMENT_TIMEOUT_MS = 30_000;

// Next's dev server re-evaluates modules on every edit; the pools live on globalThis, keyed by
// URL, so a reload does not open another pool and tests with another database get their own.
const globalForIngest = globalThis as unknown as { batonIngestPools?: Map<string, pg.Pool> };

/** A pool for the ingest hot path (plain pg: see write-events.ts for why not Prisma). */
export function createIngestPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: INGEST_POOL_SIZE,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    application_name: "baton-ingest",
  });
  // An idle connection that dies (server restart) emits 'error' on the pool; without a
  // listener that would crash the process. The next query gets a fresh connection.
  pool.on("error", (error) => console.error("[baton] ingest pool: idle connection failed:", error.message));
  return pool;
}

/** The process's ingest pool, on DATABASE_URL or the embedded PostgreSQL. */
export function getIngestPool(): pg.Pool {
  const url = resolveDatabaseUrl(getConfig());
  globalForIngest.batonIngestPools ??= new Map();
  let pool = globalForIngest.batonIngestPools.get(url);
  if (!pool) {
    pool = createIngestPool(url);
    globalForIngest.batonIngestPools.set(url, pool);
  }
  return pool;
}
