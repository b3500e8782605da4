import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";

// Parsed Key_Shared splits by their stored digest (key_shared_range_split.signature, see
// lib/poller/split-digest.ts): a split's content never changes once written (only its valid_to
// is set later), so a page of violations reads the splits' digests and parses only those this
// process has not seen. Content-addressed, so it is right whatever database a process talks to. Bounded by the ranges it holds (about 50 bytes each), least
// recently used first out.

/** About 25 MB of parsed ranges: a day of hourly rebalances of 2,500 partitions' 200 ranges. */
export const SPLIT_CACHE_MAX_RANGES = 500_000;

export type SplitCache = {
  get(digest: string): HashRangeSplit | undefined;
  set(digest: string, split: HashRangeSplit): void;
  readonly size: number;
};

function rangeCountOf(split: HashRangeSplit): number {
  let count = 0;
  for (const consumer of split.consumers) count += consumer.ranges.length;
  return count;
}

export function createSplitCache(maxRanges: number = SPLIT_CACHE_MAX_RANGES): SplitCache {
  const entries = new Map<string, { split: HashRangeSplit; ranges: number }>();
  let heldRanges = 0;
  return {
    get(digest) {
      const entry = entries.get(digest);
      if (!entry) return undefined;
      // Map keeps insertion order: re-inserting marks it most recently used.
      entries.delete(digest);
      entries.set(digest, entry);
      return entry.split;
    },
    set(digest, split) {
      if (entries.has(digest)) return;
      const ranges = rangeCountOf(split);
      if (ranges > maxRanges) return;
      entries.set(digest, { split, ranges });
      heldRanges += ranges;
      for (const [oldest, entry] of entries) {
        if (heldRanges <= maxRanges) break;
        entries.delete(oldest);
        heldRanges -= entry.ranges;
      }
    },
    get size() {
      return entries.size;
    },
  };
}
