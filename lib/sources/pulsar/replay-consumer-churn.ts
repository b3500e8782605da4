// A Failover partition whose holder stayed connected while its consumer set churned within one
// poll (a rolling deployment: pod-3 joins, pod-2 leaves). The broker reruns its rule on every
// join and every leave, so the partition may have been handed to another consumer and back
// between two polls, with nothing in the stats to show it. The order of the joins and leaves is
// unknown: every set the subscription can have passed through (the set before, with some of the
// joins and without some of the leaves) is replayed through the rule. Pure and client-safe.

import { FAILOVER_RULE_OPTIONS, failoverTargetOf, toFailoverConsumers } from "@/lib/sources/pulsar/predict-next-consumer";
import { pickActiveConsumer } from "@/lib/pulsar/failover-rule";

/** Joins and leaves replayed at most: 2^10 intermediate sets. Beyond it nothing is claimed. */
export const MAX_REPLAYED_EVENTS = 10;

export type ChurnReplayInput = {
  topic: string;
  partition: number;
  subscriptionType: string | null;
  /** The active consumer at both polls (the same connection). */
  holder: string | null;
  before: readonly string[];
  added: readonly string[];
  removed: readonly string[];
};

/**
 * `via`: the consumers the rule made active in some intermediate set, in name order.
 * `isCertain`: every order of the joins and leaves passes through one of them (else some order
 * keeps the holder active throughout).
 */
export type ChurnReplay = { via: string[]; isCertain: boolean };

export function replayConsumerChurn(input: ChurnReplayInput): ChurnReplay | null {
  const { holder, before, added, removed } = input;
  const events = [...added.map((name) => ({ name, isJoin: true })), ...removed.map((name) => ({ name, isJoin: false }))];
  // One event has no set in between; the holder must stay in every set.
  if (input.subscriptionType !== "Failover" || holder === null || events.length < 2 || events.length > MAX_REPLAYED_EVENTS || removed.includes(holder))
    return null;
  const target = failoverTargetOf(input.topic, input.partition);
  const activeOf = (names: string[]) => pickActiveConsumer(toFailoverConsumers(names), target, FAILOVER_RULE_OPTIONS);
  // Baton's inputs must be the broker's: the rule picks the observed holder at both ends.
  const start = activeOf([...before]);
  if (!start.ok || start.value !== holder) return null;

  const full = (1 << events.length) - 1;
  const isHandedAway: boolean[] = new Array(full + 1).fill(false);
  const via = new Set<string>();
  for (let mask = 1; mask <= full; mask++) {
    const leaving = new Set(events.filter((event, bit) => !event.isJoin && (mask & (1 << bit)) !== 0).map((event) => event.name));
    const joining = events.filter((event, bit) => event.isJoin && (mask & (1 << bit)) !== 0).map((event) => event.name);
    const active = activeOf([...before.filter((name) => !leaving.has(name)), ...joining]);
    if (!active.ok) return null;
    if (mask === full) {
      if (active.value !== holder) return null;
      continue;
    }
    if (active.value !== holder) {
      isHandedAway[mask] = true;
      if (active.value !== null) via.add(active.value);
    }
  }
  if (via.size === 0) return null;
  // Is there an order (one event at a time) that never leaves the holder's hands?
  const isReachable: boolean[] = new Array(full + 1).fill(false);
  isReachable[0] = true;
  for (let mask = 1; mask <= full; mask++) {
    if (isHandedAway[mask]) continue;
    for (let bit = 0; bit < events.length && !isReachable[mask]; bit++) {
      if ((mask & (1 << bit)) !== 0 && isReachable[mask ^ (1 << bit)]) isReachable[mask] = true;
    }
  }
  return { via: [...via].sort(), isCertain: !isReachable[full] };
}
