// A Key_Shared subscription's split of the sticky-key hash space between its consumers, as the
// poller stores it with a subscription partition (and signs it to compare splits). Client-safe and pure.

/** An inclusive [start, end] range of sticky-key hashes. */
export type HashRange = [number, number];

export type ConsumerRanges = { consumer: string; ranges: HashRange[] };

export type HashRangeSplit = {
  /** The size of the hash space: 65,536 (4.x, and 3.x auto-split) or 2,147,483,647 (3.x consistent hashing). */
  space: number;
  consumers: ConsumerRanges[];
};

/** A compact signature: equal signatures mean the same split. */
export function signHashRangeSplit(split: HashRangeSplit | null): string {
  if (!split) return "";
  return split.consumers
    .map((c) => `${c.consumer}:${c.ranges.map(([s, e]) => `${s}-${e}`).join(",")}`)
    .sort()
    .join("|");
}
