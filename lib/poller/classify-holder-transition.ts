// The one rule every source kind shares for "did the holder change between two observations?".
// Pure. A session is what tells one hold from the next under the same name: Pulsar's
// connectedSince of the active consumer, a lock's token, a ZooKeeper session id.

export type HolderSide = { holder: string | null; session: string | null };

export type HolderTransition = "HOLDER_CHANGED" | "HOLDER_LOST" | "HOLDER_APPEARED" | "HIDDEN_FLAP";

/** The transition from `before` to `after`, or null when the same hold goes on. */
export function classifyHolderTransition(before: HolderSide, after: HolderSide): HolderTransition | null {
  if (before.holder !== null && after.holder !== null && before.holder !== after.holder) return "HOLDER_CHANGED";
  if (before.holder !== null && after.holder === null) return "HOLDER_LOST";
  if (before.holder === null && after.holder !== null) return "HOLDER_APPEARED";
  // Same name at both ends, another session: the hold was lost and regained in between.
  if (after.holder !== null && before.session !== null && after.session !== null && before.session !== after.session) return "HIDDEN_FLAP";
  return null;
}
