import "server-only";

import { ApiError } from "@/lib/http/api-error";

/** Seconds a client should wait before sending the same request again. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * The database failed while serving a write (or checking its token): nothing was written, and
 * sending the same request again is safe (event ids make it idempotent). HTTP answers 503 with Retry-After; a topic
 * consumer should not acknowledge the message, so that it is redelivered.
 */
export class DatabaseUnavailableError extends ApiError {
  override name = "DatabaseUnavailableError";
  constructor(cause: unknown) {
    super(503, "database_unavailable", "Baton's database is unavailable; nothing from this request was written. Send it again later.", undefined, {
      "Retry-After": String(RETRY_AFTER_SECONDS),
    });
    this.cause = cause;
  }
}
