// The next active consumer of one subscription partition if its active consumer leaves: the
// broker's Failover rule (lib/pulsar/failover-rule.ts) rerun without it. Exclusive, Shared and
// Key_Shared have no such rule: a plain "cannot be computed" with the reason. Client-safe, pure.

import { cannotPredict, type NextHolder, nextHolderOf } from "@/lib/poller/next-holder";
import { DEFAULT_PRIORITY_LEVEL, type FailoverConsumer, type FailoverRuleOptions, predictNextInLine } from "@/lib/pulsar/failover-rule";

export type NextConsumerInput = {
  /** The topic's full base name (without -partition-N). */
  topic: string;
  /** -1 for a non-partitioned topic. */
  partition: number;
  subscriptionType: string | null;
  holder: string | null;
  /** Consumer names as observed (a nameless consumer carries the placeholder of observe-topic.ts). */
  consumers: readonly string[];
};

/**
 * Baton's inputs to the rule: every consumer at the Java client's default priority level (the
 * stats do not carry levels), and PIP-392's partition hashing off (its default). With these the
 * 4.2 and 3.0 lines choose alike. Where a broker's inputs differ, the rule's current pick differs
 * from the observed active consumer (then "rule-disagrees-with-broker"), or the prediction is
 * scored wrong when the holder leaves.
 */
export const FAILOVER_RULE_OPTIONS: FailoverRuleOptions = { line: "4.2", isConsistentHashingForPartitions: false };

/** observe-topic.ts names a consumer the stats leave nameless "(unnamed N)": the rule cannot sort it. */
const UNNAMED = /^\(unnamed \d+\)$/;

const NO_RULE: Record<string, NextHolder> = {
  Exclusive: cannotPredict("no-owner-rule", "an Exclusive subscription admits one consumer: nobody waits to take over"),
  Shared: cannotPredict("no-owner-rule", "a Shared subscription has no active consumer: every consumer receives messages"),
  Key_Shared: cannotPredict("no-owner-rule", "Key_Shared splits the keys over every consumer by hash range: nobody takes over the whole"),
};

export function toFailoverConsumers(names: readonly string[]): FailoverConsumer[] {
  return names.map((name) => ({ name: UNNAMED.test(name) ? undefined : name, priorityLevel: DEFAULT_PRIORITY_LEVEL }));
}

export function failoverTargetOf(topic: string, partition: number) {
  return partition < 0 ? { topic, partitionIndex: -1 } : { topic: `${topic}-partition-${partition}`, partitionIndex: partition };
}

export function predictNextConsumer(resource: NextConsumerInput): NextHolder {
  const { subscriptionType, holder, consumers } = resource;
  if (subscriptionType !== null && subscriptionType !== "Failover") {
    return NO_RULE[subscriptionType] ?? cannotPredict("no-owner-rule", `the subscription type ${subscriptionType} has no rule for a next consumer`);
  }
  // Without consumers the broker reports no type: nobody holds it, and nobody is next.
  if (consumers.length === 0) return { holder: null, reason: null, detail: null };
  if (subscriptionType === null) return cannotPredict("no-owner-rule", "the broker reports no subscription type");
  const target = failoverTargetOf(resource.topic, resource.partition);
  return nextHolderOf(predictNextInLine(toFailoverConsumers(consumers), target, FAILOVER_RULE_OPTIONS, holder ?? undefined));
}
