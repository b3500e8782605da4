import "server-only";

import { getConfig } from "@/lib/config";
import { resolveDatabaseUrl } from "@/lib/db/database-url";
import { describeDatabaseError } from "@/lib/db/describe-database-error";

/** A read that either worked or says why the data is unavailable (never "nothing there"). */
export type QueryResult<T> = { isAvailable: true; data: T } | { isAvailable: false; reason: string };

export async function runQuery<T>(read: () => Promise<T>): Promise<QueryResult<T>> {
  try {
    return { isAvailable: true, data: await read() };
  } catch (error) {
    console.error("[baton] read failed:", error);
    return { isAvailable: false, reason: describeDatabaseError(error, resolveDatabaseUrl(getConfig())) };
  }
}
