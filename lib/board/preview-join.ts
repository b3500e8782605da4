// "What happens if I scale from N to N+1 consumers": the partitions of a Failover subscription
// whose active consumer changes when one more consumer joins, by the broker's rule
// (lib/pulsar/failover-rule.ts) with the inputs Baton assumes (predict-next-consumer.ts).
// Client-safe, pure.

import { listFailoverTargets, type PartitionMove, predictMovesOnJoin } from "@/lib/pulsar/failover-rule";
import { FAILOVER_RULE_OPTIONS, toFailoverConsumers } from "@/lib/sources/pulsar/predict-next-consumer";

export type JoinPreviewInput = {
  topic: string;
  subscriptionType: string | null;
  isPartitioned: boolean;
  /** The partition numbers Baton knows (-1 alone for a non-partitioned topic). */
  partitions: readonly number[];
  consumers: readonly string[];
};

export type JoinPreview = { ok: true; moves: PartitionMove[]; partitionCount: number; consumerCount: number } | { ok: false; detail: string };

export function previewJoin(input: JoinPreviewInput, newcomer: string): JoinPreview {
  const name = newcomer.trim();
  if (input.subscriptionType !== "Failover") {
    return {
      ok: false,
      detail: `cannot be computed: only Failover has a rule for who becomes active (this subscription is ${input.subscriptionType ?? "of unknown type"})`,
    };
  }
  if (name === "") return { ok: false, detail: "type the new consumer's name: the rule sorts consumers by name" };
  if (input.consumers.includes(name)) return { ok: false, detail: `${name} is already a consumer of this subscription` };
  const partitionCount = input.isPartitioned ? Math.max(...input.partitions) + 1 : 0;
  const targets = listFailoverTargets(input.topic, partitionCount);
  const [joining] = toFailoverConsumers([name]);
  const moves = predictMovesOnJoin(toFailoverConsumers(input.consumers), joining!, targets, FAILOVER_RULE_OPTIONS);
  if (!moves.ok) return { ok: false, detail: `cannot be computed: ${moves.detail}` };
  return { ok: true, moves: moves.value, partitionCount: targets.length, consumerCount: input.consumers.length + 1 };
}

/** A name for "one more consumer" in the style of the current ones: w-3 after w-1, w-2; else "new-consumer". */
export function suggestConsumerName(consumers: readonly string[]): string {
  let best: { prefix: string; number: number; width: number } | null = null;
  for (const name of consumers) {
    const match = /^(.*?)(\d+)$/.exec(name);
    if (match && (best === null || Number(match[2]) > best.number)) best = { prefix: match[1]!, number: Number(match[2]), width: match[2]!.length };
  }
  if (best === null) return consumers.includes("new-consumer") ? "new-consumer-2" : "new-consumer";
  for (let n = best.number + 1; ; n++) {
    const name = `${best.prefix}${String(n).padStart(best.width, "0")}`;
    if (!consumers.includes(name)) return name;
  }
}
