import "server-only";

import path from "node:path";

import type { Config } from "@/lib/config";
import { checkDatabase } from "@/lib/db/check-database";
import { EMBEDDED_DATABASE_NAME } from "@/lib/db/database-url";
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { applyMigrations } from "@/lib/db/migrate";

export class StartupError extends Error {
  override name = "StartupError";
}

export type PreparedDatabase = { url: string; embedded: EmbeddedPostgresHandle | null; appliedMigrations: string[] };

/**
 * Makes the database usable: DATABASE_URL when set (checked, with a one-line reason when it
 * cannot be used), else the embedded PostgreSQL under the data directory; then migrations.
 */
export async function prepareDatabase(config: Config, log: (line: string) => void): Promise<PreparedDatabase> {
  let url: string;
  let embedded: EmbeddedPostgresHandle | null = null;
  if (config.databaseUrl) {
    const check = await checkDatabase(config.databaseUrl, 10_000);
    if (!check.isReachable) throw new StartupError(`DATABASE_URL: ${check.reason}`);
    url = config.databaseUrl;
  } else {
    const baseDir = path.join(config.dataDir, "postgres");
    try {
      // The launchers stop the server themselves, last, on Ctrl-C.
      embedded = await startEmbeddedPostgres({ baseDir, port: config.embeddedPostgresPort, database: EMBEDDED_DATABASE_NAME, log, isShutdownOrdered: true });
    } catch (error) {
      throw new StartupError(
        `the embedded PostgreSQL in ${baseDir} did not start on port ${config.embeddedPostgresPort}: ${(error as Error).message.split("\n")[0]} (set BATON_EMBEDDED_PG_PORT for another port, or DATABASE_URL for your own server)`,
      );
    }
    url = embedded.url;
  }
  try {
    return { url, embedded, appliedMigrations: await applyMigrations(url) };
  } catch (error) {
    await embedded?.stop();
    throw new StartupError(`migrations failed: ${(error as Error).message.split("\n")[0]}`);
  }
}
