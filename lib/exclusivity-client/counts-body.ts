/**
 * One minute of one client's increments as Baton's POST /api/v1/exclusivity-counts takes it
 * ("violations+counts" mode). Idempotent per (clientId, minute, subscription, topic): a re-sent
 * body writes nothing new.
 */
export type CountsBody = {
  /** A UUID per client instance (a restart is a new client): the idempotency key with minute. */
  clientId: string;
  service: string;
  worker: string;
  /** What the counts cover: "violations+counts" = increments that saw nobody inside (counter 0); violations arrive as events. */
  mode: "violations+counts";
  /** The start of the UTC minute, RFC 3339. */
  minute: string;
  counts: CountGroup[];
};

export type CountGroup = { subscription?: string; topic?: string; increments: number };

/** Groups per body; a minute with more is sent in several bodies (each group is its own row). */
export const MAX_COUNT_GROUPS = 1_000;
