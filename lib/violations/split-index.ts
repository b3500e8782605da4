// A key's owner under a stored Key_Shared split, for many keys: the split's line and fold are
// judged once per split (a WeakMap keyed by the parsed split), the key's hash once per key, and
// the ranges are scanned in place (a few hundred comparisons, no allocation; cheaper than sorting
// a split that serves a handful of lookups). Gives the answers of findKeyOwner
// (lib/pulsar/key-owner.ts). Pure and client-safe.

import type { HashRange, HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { inferKeySharedSelector, type KeyOwner } from "@/lib/pulsar/key-owner";
import { cannotCompute, computed, type RuleResult } from "@/lib/poller/contract/rule-result";
import { computeStickyKeyHash, resolveStickyKeyBytes, selectStickyKeyHashFold, type StickyKeyHashFold } from "@/lib/pulsar/sticky-key-hash";
import type { BrokerLine } from "@/lib/pulsar/broker-line";

type SplitRule = { kind: "cannot"; result: RuleResult<never> } | { kind: "ok"; line: BrokerLine; fold: StickyKeyHashFold };

const rules = new WeakMap<HashRangeSplit, SplitRule>();

/**
 * The line whose fold applies to a stored split, judged from its hash space: 3.0's consistent
 * hashing spans 0..2^31; 4.2's ends at 65,535. Auto-split and sticky splits end at 65,536 on both
 * lines, whose folds differ only for a hash of 0 (4.2 moves it to 1), which no split boundary
 * separates from 1: the owner is the same either way.
 */
export function lineOfSplit(split: HashRangeSplit): BrokerLine {
  return split.space > 65_536 ? "3.0" : "4.2";
}

function ruleOf(split: HashRangeSplit): SplitRule {
  const line = lineOfSplit(split);
  if (split.consumers.every((c) => c.ranges.length === 0))
    return { kind: "cannot", result: cannotCompute("no-ranges", "the stats carry no hash ranges for this subscription") };
  const selector = inferKeySharedSelector(line, split, undefined);
  if (!selector.ok) return { kind: "cannot", result: selector };
  return { kind: "ok", line, fold: selectStickyKeyHashFold(line, selector.value) };
}

/** The consumer and range holding `hash`; "overlap" when two consumers' ranges hold it. */
function scan(split: HashRangeSplit, hash: number): { consumer: string; range: HashRange } | "overlap" | null {
  let found: { consumer: string; range: HashRange } | null = null;
  for (const { consumer, ranges } of split.consumers) {
    for (const range of ranges) {
      if (range[0] <= hash && hash <= range[1]) {
        if (found !== null) return "overlap";
        found = { consumer, range };
        break;
      }
    }
  }
  return found;
}

/** The largest end of the split's ranges. */
function lastEndOf(split: HashRangeSplit): number {
  let max = -1;
  for (const { ranges } of split.consumers) for (const range of ranges) if (range[1] > max) max = range[1];
  return max;
}

/** A key's owner under a stored split; `hashes` caches the key's hash per fold across splits. */
export function findOwnerInSplit(key: string, split: HashRangeSplit, hashes: Map<StickyKeyHashFold, RuleResult<number>>): RuleResult<KeyOwner> {
  let rule = rules.get(split);
  if (!rule) rules.set(split, (rule = ruleOf(split)));
  if (rule.kind === "cannot") return rule.result;
  let hash = hashes.get(rule.fold);
  if (!hash) {
    const bytes = resolveStickyKeyBytes({ partitionKey: key }, rule.line);
    hash = bytes.ok ? computed(computeStickyKeyHash(bytes.value, rule.fold)) : bytes;
    hashes.set(rule.fold, hash);
  }
  if (!hash.ok) return hash;
  const value = hash.value;
  let holder = scan(split, value);
  // 3.0's ring: a hash past every range wraps to the consumer holding 0 (see key-owner.ts).
  if (holder === null && rule.fold === "full-31-bit" && lastEndOf(split) < value) holder = scan(split, 0);
  if (holder === "overlap") return cannotCompute("overlapping-ranges", `hash ${value} is in the ranges of more than one consumer`);
  return computed({ hash: value, fold: rule.fold, owner: holder?.consumer ?? null, range: holder?.range ?? null });
}
