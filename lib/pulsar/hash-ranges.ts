// Key_Shared hash ranges: parsing both broker formats, and the facts the board needs (share
// of the hash space per consumer, gaps, overlaps). Client-safe and pure.

import type { ConsumerRanges, HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import type { ConsumerStats } from "@/lib/pulsar/schemas";

const RANGE_STRING = /^\[\s*(\d+)\s*,\s*(\d+)\s*\]$/;
const SMALL_SPACE = 65_536;
/** 3.x consistent hashing places points over [0, 2147483646]. */
const LARGE_SPACE = 2_147_483_647;

/** Parses one consumer's ranges from `keyHashRangeArrays` (4.x) or `keyHashRanges` (3.x). */
export function parseConsumerRanges(consumer: Pick<ConsumerStats, "keyHashRangeArrays" | "keyHashRanges">): HashRange[] | null {
  if (consumer.keyHashRangeArrays) return consumer.keyHashRangeArrays.map(([start, end]) => [start, end]);
  if (!consumer.keyHashRanges) return null;
  const ranges: HashRange[] = [];
  for (const text of consumer.keyHashRanges) {
    const match = RANGE_STRING.exec(text);
    // A malformed entry is skipped rather than failing the whole observation.
    if (match) ranges.push([Number(match[1]), Number(match[2])]);
  }
  return ranges;
}

/**
 * The hash space the ranges live in, judged from the largest end seen. Auto-split selectors
 * (consistent hashing off) report their last range as ending at 65,536 itself, on 4.x and 3.x:
 * that is still the small space.
 */
export function detectHashSpace(consumers: ConsumerRanges[]): number {
  const maxEnd = consumers.reduce((max, c) => c.ranges.reduce((m, [, end]) => Math.max(m, end), max), 0);
  return maxEnd > SMALL_SPACE ? LARGE_SPACE : SMALL_SPACE;
}

/** The Key_Shared split of one subscription partition, or null when no consumer has ranges. */
export function buildHashRangeSplit(consumers: { name: string; ranges: HashRange[] | null }[]): HashRangeSplit | null {
  const withRanges = consumers.filter((c): c is { name: string; ranges: HashRange[] } => c.ranges !== null);
  if (withRanges.length === 0) return null;
  const split = withRanges.map((c) => ({ consumer: c.name, ranges: [...c.ranges].sort((a, b) => a[0] - b[0]) }));
  return { space: detectHashSpace(split), consumers: split };
}

/** The hashes of a range that lie in the space (an auto-split range's end of 65,536 lies just past it). */
function rangeSize([start, end]: HashRange, space: number): number {
  return Math.max(0, Math.min(end, space - 1) - start + 1);
}

/** Each consumer's share of the hash space, 0..1. */
export function computeShares(split: HashRangeSplit): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const { consumer, ranges } of split.consumers) {
    shares[consumer] = (shares[consumer] ?? 0) + ranges.reduce((sum, r) => sum + rangeSize(r, split.space), 0) / split.space;
  }
  return shares;
}

export type HashRangeProblems = {
  /** Hash ranges no consumer owns: keys there are not delivered. */
  gaps: HashRange[];
  /** Hash ranges owned by more than one consumer: a key there could go to two workers. */
  overlaps: HashRange[];
};

/**
 * Gaps and overlaps over the hash space. 4.x ranges start at 0 or 1 depending on the selector;
 * a range of the space's first hash alone is not reported as a gap.
 */
export function findHashRangeProblems(split: HashRangeSplit): HashRangeProblems {
  const all = split.consumers.flatMap((c) => c.ranges).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const gaps: HashRange[] = [];
  const overlaps: HashRange[] = [];
  const lastHash = split.space - 1;
  let coveredTo = 0; // the first hash not yet covered
  for (const [start, end] of all) {
    if (start > coveredTo && !(coveredTo === 0 && start === 1)) gaps.push([coveredTo, start - 1]);
    if (start < coveredTo) overlaps.push([start, Math.min(end, coveredTo - 1)]);
    coveredTo = Math.max(coveredTo, end + 1);
  }
  if (all.length > 0 && coveredTo <= lastHash) gaps.push([coveredTo, lastHash]);
  return { gaps, overlaps };
}
