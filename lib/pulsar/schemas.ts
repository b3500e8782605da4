import { z } from "zod";

// Schemas for the Pulsar admin responses Baton reads. The broker serialises with NON_NULL, so
// optional fields are absent rather than null; unknown fields are kept out of the way (zod
// strips them) so that newer brokers do not break the poller. Strict only where Baton relies on
// a field. Client-safe: no server imports.

/** Some fields are numbers on one version and absent (or -1 for "not computed") on another. */
const optionalNumber = z.number().optional();

export const consumerStatsSchema = z.object({
  /** Absent on some late-2024 releases (apache/pulsar#23671): handled as an unnamed consumer. */
  consumerName: z.string().optional(),
  connectedSince: z.string().optional(),
  address: z.string().optional(),
  clientVersion: z.string().optional(),
  msgRateOut: optionalNumber,
  msgThroughputOut: optionalNumber,
  availablePermits: optionalNumber,
  unackedMessages: optionalNumber,
  blockedConsumerOnUnackedMsgs: z.boolean().optional(),
  lastAckedTimestamp: optionalNumber,
  lastConsumedTimestamp: optionalNumber,
  /** 4.x Key_Shared (PIP-379): inclusive [start, end] pairs over 0..65535. */
  keyHashRangeArrays: z.array(z.tuple([z.number(), z.number()])).optional(),
  /** 3.x / classic Key_Shared: "[start, end]" strings, inclusive. */
  keyHashRanges: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type ConsumerStats = z.output<typeof consumerStatsSchema>;

export const subscriptionStatsSchema = z.object({
  type: z.string().optional(),
  /** Set only for Exclusive/Failover subscriptions with an active consumer. */
  activeConsumerName: z.string().optional(),
  consumers: z.array(consumerStatsSchema).default([]),
  msgBacklog: optionalNumber,
  msgRateOut: optionalNumber,
  unackedMessages: optionalNumber,
  lastConsumedTimestamp: optionalNumber,
  lastAckedTimestamp: optionalNumber,
  keySharedMode: z.string().optional(),
  /** Both spellings appear in real output (public field and Lombok getter). */
  isDurable: z.boolean().optional(),
  durable: z.boolean().optional(),
});
export type SubscriptionStats = z.output<typeof subscriptionStatsSchema>;

export const topicStatsSchema = z.object({
  subscriptions: z.record(z.string(), subscriptionStatsSchema).default({}),
  ownerBroker: z.string().optional(),
  msgRateIn: optionalNumber,
});
export type TopicStats = z.output<typeof topicStatsSchema>;

export const partitionedTopicStatsSchema = z.object({
  metadata: z.object({ partitions: z.number().int().nonnegative() }),
  // The answer's aggregate `subscriptions` (over all partitions) is left out, so it is neither
  // read nor validated: leaders cannot be read from it (the broker drops activeConsumerName there
  // and merges consumers by list index), and validating it cost as much as one more partition.
  /** Keyed by the partition's full name, e.g. persistent://t/ns/orders-partition-3. */
  partitions: z.record(z.string(), topicStatsSchema).default({}),
});
export type PartitionedTopicStats = z.output<typeof partitionedTopicStatsSchema>;

export const partitionedMetadataSchema = z.object({ partitions: z.number().int().nonnegative() });

export const stringListSchema = z.array(z.string());
