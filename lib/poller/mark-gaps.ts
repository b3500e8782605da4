// Gap honesty, for every source kind: a failed read makes a resource stale (its last known holder
// kept, never "no holder"); a resource discovery no longer finds is gone. Neither is a change.
// Pure.

/** What every kind's state keeps about the polls that failed and the resource's disappearance. */
export type GapFields = { staleSince: string | null; lastError: string | null; lastErrorAt: string | null; goneAt: string | null };

/**
 * A poll of the resource failed: the state becomes stale (since the first failure), keeps its
 * last known holder, and records the error. Never a change.
 */
export function markStale<S extends GapFields>(prev: S, error: string, at: string): S {
  return { ...prev, staleSince: prev.staleSince ?? at, lastError: error, lastErrorAt: at };
}

/** Discovery no longer finds the resource (a deleted topic or subscription, a lock key gone for good). Never a change. */
export function markGone<S extends GapFields>(prev: S, at: string): S {
  return prev.goneAt ? prev : { ...prev, goneAt: at };
}
