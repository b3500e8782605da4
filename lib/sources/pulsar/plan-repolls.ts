// Which stats to read again when the consumer signal names topic partitions whose consumers
// changed. Pure.

import type { WatchedTopic } from "@/lib/sources/pulsar/discover-topics";
import { formatTopicName, parseTopicName } from "@/lib/pulsar/topic-name";

/** One re-poll: a whole topic (partition null: partitioned-stats or a non-partitioned topic's stats) or one partition. */
export type Repoll = { topic: WatchedTopic; partition: number | null };

/**
 * One request per watched topic named: the single partition's own stats when only one of its
 * partitions changed (a small answer), the topic's partitioned-stats when several did (one
 * request instead of several). Topics outside the watched scope are left alone.
 */
export function planRepolls(changedTopics: Iterable<string>, watched: ReadonlyMap<string, WatchedTopic>): Repoll[] {
  const partitionsByTopic = new Map<string, Set<number>>();
  for (const name of changedTopics) {
    // A non-partitioned topic may itself be named like a partition (x-partition-3): exact name first.
    const exact = watched.get(name);
    const parsed = exact ? null : parseTopicName(name);
    const fullName = exact ? exact.fullName : parsed ? formatTopicName(parsed.topic) : null;
    if (fullName === null || !watched.has(fullName)) continue;
    let partitions = partitionsByTopic.get(fullName);
    if (!partitions) partitionsByTopic.set(fullName, (partitions = new Set()));
    partitions.add(exact ? -1 : parsed!.partition);
  }
  return [...partitionsByTopic].map(([fullName, partitions]) => {
    const topic = watched.get(fullName)!;
    const only = [...partitions][0]!;
    return { topic, partition: topic.isPartitioned && partitions.size === 1 && only >= 0 ? only : null };
  });
}
