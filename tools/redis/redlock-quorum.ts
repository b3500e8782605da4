// The Redlock algorithm's arithmetic (redis.io/docs/manual/patterns/distributed-locks): a lock
// over N independent masters is held when a majority accepted it and time is left of its TTL
// after the acquisition and an allowance for clock drift. Pure.

/** Redis's expiry precision (1 ms) plus a millisecond of rounding, as node-redlock allows. */
const EXPIRY_PRECISION_MS = 2;
/** The algorithm's default drift factor: clocks may run 1% apart over the TTL. */
export const DEFAULT_DRIFT_FACTOR = 0.01;

/** How many masters must agree: more than half. */
export function quorumOf(masters: number): number {
  if (!Number.isInteger(masters) || masters < 1) throw new Error(`a Redlock group needs at least one master (got ${masters})`);
  return Math.floor(masters / 2) + 1;
}

/** The clock drift allowed over a TTL. */
export function driftOf(ttlMs: number, driftFactor = DEFAULT_DRIFT_FACTOR): number {
  return Math.round(ttlMs * driftFactor) + EXPIRY_PRECISION_MS;
}

/** What is left of the TTL once the masters answered `elapsedMs` after the request: may be negative. */
export function validityOf(ttlMs: number, elapsedMs: number, driftFactor = DEFAULT_DRIFT_FACTOR): number {
  return ttlMs - elapsedMs - driftOf(ttlMs, driftFactor);
}

/** A set (or an extension) holds when a majority accepted it and it is still valid. */
export function isQuorumHeld(result: { masters: number; accepted: number; ttlMs: number; elapsedMs: number; driftFactor?: number }): boolean {
  return result.accepted >= quorumOf(result.masters) && validityOf(result.ttlMs, result.elapsedMs, result.driftFactor) > 0;
}
