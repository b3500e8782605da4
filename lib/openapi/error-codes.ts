import "server-only";

import { RETRY_AFTER_SECONDS } from "@/lib/ingest/database-unavailable-error";

// Every `error.code` Baton's API answers, with its status: the operations list the codes they
// can answer, and the document groups them by status.

export const ERROR_CODES = {
  invalid_request: { status: 400, description: "The query or body is invalid; `details.issues` lists every `{ field, message }` at fault." },
  invalid_json: { status: 400, description: "The body is not JSON (for events: neither an array nor an object)." },
  invalid_ndjson: { status: 400, description: "An NDJSON line is not JSON; `details.line` is its 1-based number." },
  invalid_encoding: { status: 400, description: "The body is not UTF-8." },
  missing_token: { status: 401, description: "No `Authorization: Bearer …` header. Nothing was read or written." },
  invalid_token: { status: 401, description: "A malformed, unknown or revoked token. Nothing was read or written." },
  unauthenticated: {
    status: 401,
    description:
      "Access control is configured and the request has neither a signed-in session nor a read-scoped token (nor a trusted proxy's user). Nothing was read.",
  },
  deployment_not_found: { status: 404, description: "No deployment has that id (Baton's or yours)." },
  event_not_found: { status: 404, description: "No stored counter event has that id (raw events older than the retention are deleted)." },
  not_found: { status: 404, description: "Baton has not seen that subscription on that topic in that cluster." },
  deployment_conflict: { status: 409, description: "The id was posted before for another service, version or environment; `details.existing` shows it." },
  deployment_already_finished: { status: 409, description: "The deployment finished already; `details.finishedAt` is when (the first finish stands)." },
  payload_too_large: { status: 413, description: "The body is over the limit (`details.maxBytes`); the rest is not read." },
  too_many_events: { status: 413, description: "More events than a request may carry (`details.maxEvents`, BATON_INGEST_MAX_EVENTS)." },
  unsupported_media_type: { status: 415, description: "Another Content-Type or charset." },
  unsupported_content_encoding: { status: 415, description: "A compressed body: send it uncompressed." },
  database_unavailable: {
    status: 503,
    description: `The database failed; nothing of the request was written, so sending it again after \`Retry-After\` (${RETRY_AFTER_SECONDS} s) is safe.`,
  },
  internal: { status: 500, description: "Baton could not answer; the server log has the details (the answer names no internals)." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes every ingest write can answer before its body is parsed: the token check. */
export const TOKEN_ERRORS: readonly ErrorCode[] = ["missing_token", "invalid_token", "database_unavailable"];

/** The codes of reading a small JSON body (lib/http/parse-input.ts). */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "invalid_json",
  "invalid_encoding",
  "payload_too_large",
  "unsupported_media_type",
  "unsupported_content_encoding",
];
