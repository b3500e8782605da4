import "server-only";

import type { Config } from "@/lib/config";

export const EMBEDDED_DATABASE_NAME = "baton";
export const EMBEDDED_USER = "postgres";
// The embedded server listens on 127.0.0.1 only; the password keeps other local users out
// of nothing they could not read on disk anyway, so a fixed one is fine.
export const EMBEDDED_PASSWORD = "baton";

export function embeddedDatabaseUrl(config: Pick<Config, "embeddedPostgresPort">): string {
  return `postgresql://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${config.embeddedPostgresPort}/${EMBEDDED_DATABASE_NAME}`;
}

/** DATABASE_URL when set, else the embedded PostgreSQL that `npm start` runs. */
export function resolveDatabaseUrl(config: Pick<Config, "databaseUrl" | "embeddedPostgresPort">): string {
  return config.databaseUrl ?? embeddedDatabaseUrl(config);
}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
