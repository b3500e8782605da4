import "server-only";

// Bounds on what one event or deployment may carry. docs/ingest.md lists them; keep the two in
// step. The request-level limits (body bytes, events per request) are settings in lib/config.ts.

export const MAX_EVENT_ID_LENGTH = 200;
export const MAX_KEY_LENGTH = 512;
/** A counter event's `lock`: "<cluster>/<lock key>". */
export const MAX_LOCK_REF_LENGTH = 64 + 1 + MAX_KEY_LENGTH;
export const MAX_NAME_LENGTH = 200;
export const MAX_TOPIC_LENGTH = 512;
export const MAX_TRACE_ID_LENGTH = 200;
/** Postgres `integer` columns: counter and partition. */
export const MAX_INT4 = 2_147_483_647;

/** Serialized size of `attributes` in UTF-8 bytes. */
export const MAX_ATTRIBUTES_BYTES = 8 * 1024;
/** Nesting of `attributes`: the object itself is depth 1. */
export const MAX_ATTRIBUTES_DEPTH = 8;

/** Clocks drift, but an event a day ahead of Baton's clock is a bug in the sender. */
export const MAX_FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;
/**
 * 2000-01-01T00:00:00Z. Earlier instants are almost always epoch *seconds* sent as
 * milliseconds (1.7e9 ms is January 1970), so they are rejected with that hint.
 */
export const MIN_TIMESTAMP_MS = Date.UTC(2000, 0, 1);

export const MAX_DEPLOYMENT_VERSION_LENGTH = 200;
export const MAX_DEPLOYMENT_LINK_LENGTH = 2_048;
export const MAX_DEPLOYMENT_DESCRIPTION_LENGTH = 10_000;
/** A deployment is one small JSON object; nothing legitimate comes near this. */
export const MAX_DEPLOYMENT_BODY_BYTES = 64 * 1024;

/** Workers an event's `othersInside` may name (the client library sends at most this many). */
export const MAX_OTHERS_INSIDE = 10;

/** A counts body is one client's minute: at most this many (subscription, topic) groups... */
export const MAX_COUNT_GROUPS = 1_000;
/** ...counting at most this many increments in all (1.6 million a second from one client). */
export const MAX_COUNT_INCREMENTS_PER_BODY = 100_000_000;
/** 1,000 groups of the longest names fit. */
export const MAX_COUNTS_BODY_BYTES = 1024 * 1024;
