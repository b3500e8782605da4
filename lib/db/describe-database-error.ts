import "server-only";

import { redactDatabaseUrl } from "@/lib/db/database-url";

/** One line that says why the database could not be used, without a stack trace. */
export function describeDatabaseError(error: unknown, url: string): string {
  const where = redactDatabaseUrl(url);
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  switch (code) {
    case "ECONNREFUSED":
      return `cannot connect to PostgreSQL at ${where}: connection refused (is the server running?)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot connect to PostgreSQL at ${where}: unknown host`;
    case "ETIMEDOUT":
      return `cannot connect to PostgreSQL at ${where}: timed out`;
    case "28P01":
    case "28000":
      return `PostgreSQL at ${where} rejected the user or password`;
    case "3D000":
      return `PostgreSQL at ${where}: the database does not exist (create it first)`;
    default: {
      const message = (err.message ?? err.cause?.message ?? String(error)).split("\n")[0];
      return `PostgreSQL at ${where}: ${message}`;
    }
  }
}
