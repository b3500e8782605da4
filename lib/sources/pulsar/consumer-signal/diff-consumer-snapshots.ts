// Compares two scrapes of one broker's consumers. Pure.

import { type ConsumerSnapshot, topicOfSnapshotKey } from "@/lib/sources/pulsar/consumer-signal/parse-consumer-metrics";

/**
 * The topic partitions (full names, `...-partition-N` for a partition) where a consumer joined,
 * left or reconnected (same name, new consumer id) on any subscription, or where a subscription's
 * consumers appeared or vanished.
 */
export function diffConsumerSnapshots(previous: ConsumerSnapshot, next: ConsumerSnapshot): Set<string> {
  const changed = new Set<string>();
  for (const [key, members] of next) if (previous.get(key) !== members) changed.add(topicOfSnapshotKey(key));
  for (const key of previous.keys()) if (!next.has(key)) changed.add(topicOfSnapshotKey(key));
  return changed;
}
