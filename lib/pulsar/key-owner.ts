// Which Key_Shared consumer owns a key, from the broker's sticky-key hash and the hash-range
// split the stats reported. Answers "cannot be computed" with the reason rather than guess.
// Pure and client-safe.

import type { BrokerLine } from "@/lib/pulsar/broker-line";
import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { cannotCompute, computed, type RuleResult } from "@/lib/poller/contract/rule-result";
import {
  computeStickyKeyHash,
  type KeySharedSelector,
  type MessageKeys,
  resolveStickyKeyBytes,
  selectStickyKeyHashFold,
  type StickyKeyHashFold,
} from "@/lib/pulsar/sticky-key-hash";

/** 4.x consistent hashing reports ranges up to Range.of(1, 65535).getEnd(). */
const CONSISTENT_HASHING_END_4X = 65_535;
/** Auto-split ranges end at the range size, 65536, on both lines (their rangeMap's first key). */
const AUTO_SPLIT_END = 65_536;

export type KeyOwnerInput = {
  /** The message key as sent (a string), or every key the message carries. */
  key: string | MessageKeys;
  line: BrokerLine;
  /** The subscription's `type` from the stats. */
  subscriptionType: string | undefined;
  /** The subscription's `keySharedMode` from the stats ("AUTO_SPLIT" or "STICKY"). */
  keySharedMode: string | undefined;
  /** The split in force when the message was dispatched. */
  split: HashRangeSplit | null;
};

export type KeyOwner = {
  /** The folded sticky-key hash: the value the ranges are searched for. */
  hash: number;
  fold: StickyKeyHashFold;
  /** null when no consumer's range holds the hash (a gap: the broker holds such messages back). */
  owner: string | null;
  range: HashRange | null;
};

/** Which selector produced the split, told apart by the mode and where the ranges end. */
export function inferKeySharedSelector(line: BrokerLine, split: HashRangeSplit, keySharedMode: string | undefined): RuleResult<KeySharedSelector> {
  if (keySharedMode === "STICKY") return computed("sticky");
  const lastEnd = split.consumers.reduce((max, c) => c.ranges.reduce((m, [, end]) => Math.max(m, end), max), -1);
  if (lastEnd === AUTO_SPLIT_END) return computed("auto-split");
  if (line === "3.0" && lastEnd > AUTO_SPLIT_END) return computed("consistent-hashing");
  if (line === "4.2" && lastEnd === CONSISTENT_HASHING_END_4X) return computed("consistent-hashing");
  return cannotCompute(
    "ranges-not-of-this-line",
    `ranges ending at ${lastEnd} match no ${line} selector (4.2 ends at 65535 or 65536, 3.0 at 65536 or past it)`,
  );
}

/** Every consumer whose ranges hold `hash`. */
export function findRangeHolders(split: HashRangeSplit, hash: number): { consumer: string; range: HashRange }[] {
  const holders: { consumer: string; range: HashRange }[] = [];
  for (const { consumer, ranges } of split.consumers) {
    const range = ranges.find(([start, end]) => start <= hash && hash <= end);
    if (range) holders.push({ consumer, range });
  }
  return holders;
}

export function findKeyOwner(input: KeyOwnerInput): RuleResult<KeyOwner> {
  if (input.subscriptionType !== "Key_Shared") return noOwnerRule(input.subscriptionType);
  if (!input.split || input.split.consumers.every((c) => c.ranges.length === 0)) {
    return cannotCompute("no-ranges", "the stats carry no hash ranges for this subscription");
  }
  const split = input.split;
  const keyBytes = resolveStickyKeyBytes(typeof input.key === "string" ? { partitionKey: input.key } : input.key, input.line);
  if (!keyBytes.ok) return keyBytes;
  const selector = inferKeySharedSelector(input.line, split, input.keySharedMode);
  if (!selector.ok) return selector;

  const fold = selectStickyKeyHashFold(input.line, selector.value);
  const hash = computeStickyKeyHash(keyBytes.value, fold);
  const holders = findRangeHolders(split, hash);
  if (holders.length > 1) {
    return cannotCompute("overlapping-ranges", `hash ${hash} is in the ranges of ${holders.map((h) => h.consumer).join(", ")}`);
  }
  const holder = holders[0] ?? wrapAroundHolder(split, hash, fold);
  return computed({ hash, fold, owner: holder?.consumer ?? null, range: holder?.range ?? null });
}

/**
 * 3.0's ring reports ranges up to 2^31-2 only, but a key can hash to 2^31-1: the ring has no
 * point at or above it, so the broker wraps to the first point, whose consumer holds hash 0.
 */
function wrapAroundHolder(split: HashRangeSplit, hash: number, fold: StickyKeyHashFold) {
  if (fold !== "full-31-bit") return undefined;
  const isPastEveryRange = split.consumers.every((c) => c.ranges.every(([, end]) => end < hash));
  return isPastEveryRange ? findRangeHolders(split, 0)[0] : undefined;
}

function noOwnerRule(type: string | undefined): RuleResult<never> {
  switch (type) {
    case "Shared":
      return cannotCompute("no-owner-rule", "a Shared subscription spreads keys over its consumers: no key has an owner");
    case "Exclusive":
    case "Failover":
      return cannotCompute("no-owner-rule", `a ${type} subscription has no key ranges: its active consumer receives every key`);
    default:
      return cannotCompute("no-owner-rule", `subscription type ${type ?? "unknown"} has no key owner rule`);
  }
}
