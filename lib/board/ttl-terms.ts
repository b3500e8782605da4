// One word per lock kind for "how long the hold lasts unless renewed", with where the figure
// comes from: the lock page, the board and the kind panels all say it the same way. Pure and
// client-safe.

import type { HoldTerm as TtlTerm } from "@/lib/sources/kind-description";
import { isLockSourceKind, lockDescriptionOf } from "@/lib/sources/kind-descriptions";

export type { HoldTerm as TtlTerm } from "@/lib/sources/kind-description";

/** The kind's word and source (its description's); a kind the lists do not name gets a neutral "TTL". */
export function ttlTermOf(kind: string, details: Record<string, unknown>): TtlTerm {
  return isLockSourceKind(kind) ? lockDescriptionOf(kind).describeHoldTerm(details) : { term: "TTL", source: "as the source reports it" };
}

/**
 * The full figure of a hold: what the holder set (the longest TTL read this hold, since a TTL
 * read later has already run down), else the latest reading. The time left counts down apart.
 */
export function fullTtlMs(lock: { ttlMs: number | null; stats: { tenureMaxTtlMs: number | null } }): number | null {
  return lock.stats.tenureMaxTtlMs ?? lock.ttlMs;
}
