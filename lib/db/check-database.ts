import "server-only";

import pg from "pg";

import { describeDatabaseError } from "@/lib/db/describe-database-error";

export type DatabaseCheck = { isReachable: true; latencyMs: number } | { isReachable: false; reason: string };

/**
 * Connects once and runs `select 1`, on a connection of its own so a pool that is full or
 * broken cannot hide the answer.
 */
export async function checkDatabase(databaseUrl: string, timeoutMs: number): Promise<DatabaseCheck> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A connection that dies after connect() emits 'error'; without a listener it would crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return { isReachable: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { isReachable: false, reason: describeDatabaseError(error, databaseUrl) };
  } finally {
    await client.end().catch(() => undefined);
  }
}
