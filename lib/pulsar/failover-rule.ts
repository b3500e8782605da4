// The broker's rule for the active consumer of a Failover subscription, per broker line, read
// from AbstractDispatcherSingleActiveConsumer.pickAndScheduleActiveConsumer (docs/owner-rules.md):
// consumers sorted by priority level, then name; only the best priority level takes part; a
// partition gets sorted[partitionIndex % n], a non-partitioned topic the consistent-hash pick of
// apache/pulsar#19502 (on 4.2 also partitions, when PIP-392's setting is on). From it: the next in
// line when the active consumer leaves, and which partitions change hands when one joins or
// leaves. Pure and client-safe.

import type { BrokerLine } from "@/lib/pulsar/broker-line";
import { pulsarMurmur3Hash } from "@/lib/pulsar/murmur3";
import { cannotCompute, computed, type RuleResult } from "@/lib/poller/contract/rule-result";
import type { ConsumerStats } from "@/lib/pulsar/schemas";
import { encodeAscii, encodeUtf8Exactly, isAscii } from "@/lib/pulsar/utf8";

/** The Java client's priority level when a consumer sets none; lower is preferred. */
export const DEFAULT_PRIORITY_LEVEL = 0;
/** CONSUMER_CONSISTENT_HASH_REPLICAS: ring points per consumer. */
const RING_POINTS_PER_CONSUMER = 100;
const NON_PARTITIONED = -1;

export type FailoverConsumer = {
  /** Undefined when the stats lack it (apache/pulsar#23671). */
  name: string | undefined;
  /** null when unknown: ConsumerStats carries no priority level. */
  priorityLevel: number | null;
};

/** One dispatcher: a partition (its full name, e.g. ...-partition-2) or a non-partitioned topic (index -1). */
export type FailoverTarget = { topic: string; partitionIndex: number };

export type FailoverRuleOptions = {
  line: BrokerLine;
  /** 4.2's `activeConsumerFailoverConsistentHashing` (PIP-392, default false): partitions use the
   * hash ring too. 3.0 has no such setting and ignores this. */
  isConsistentHashingForPartitions?: boolean;
};

export type PartitionActive = FailoverTarget & { active: string | null };
export type PartitionMove = FailoverTarget & { from: string | null; to: string | null };

type NamedConsumer = { name: string; priorityLevel: number };

/** The dispatchers of a topic: its partitions, or the topic itself when `partitions` is 0. */
export function listFailoverTargets(topic: string, partitions: number): FailoverTarget[] {
  if (partitions === 0) return [{ topic, partitionIndex: NON_PARTITIONED }];
  return Array.from({ length: partitions }, (_, index) => ({ topic: `${topic}-partition-${index}`, partitionIndex: index }));
}

/** The rule's inputs from a subscription's stats; priority levels come from `priorityLevelOf`
 * (Baton's configuration), since the stats do not carry them. */
export function failoverConsumersFromStats(
  consumers: Pick<ConsumerStats, "consumerName">[],
  priorityLevelOf: (name: string) => number | null = () => null,
): FailoverConsumer[] {
  return consumers.map((c) => ({ name: c.consumerName, priorityLevel: c.consumerName === undefined ? null : priorityLevelOf(c.consumerName) }));
}

/** The consumer the broker makes active on `target`; null when there are no consumers. */
export function pickActiveConsumer(consumers: FailoverConsumer[], target: FailoverTarget, options: FailoverRuleOptions): RuleResult<string | null> {
  const known = requireNamesAndLevels(consumers);
  if (!known.ok) return known;
  return pickAmong(known.value, target, options);
}

/** The active consumer of every target. */
export function predictAssignment(consumers: FailoverConsumer[], targets: FailoverTarget[], options: FailoverRuleOptions): RuleResult<PartitionActive[]> {
  const known = requireNamesAndLevels(consumers);
  if (!known.ok) return known;
  const assignment: PartitionActive[] = [];
  for (const target of targets) {
    const active = pickAmong(known.value, target, options);
    if (!active.ok) return active;
    assignment.push({ ...target, active: active.value });
  }
  return computed(assignment);
}

/**
 * Who becomes active on `target` if its active consumer leaves (null: nobody is left). With
 * `observedActive` (the stats' activeConsumerName), refuses when the rule's current pick differs:
 * then Baton's inputs (priority levels, the PIP-392 setting) are not the broker's.
 */
export function predictNextInLine(
  consumers: FailoverConsumer[],
  target: FailoverTarget,
  options: FailoverRuleOptions,
  observedActive?: string,
): RuleResult<string | null> {
  const known = requireNamesAndLevels(consumers);
  if (!known.ok) return known;
  const current = pickAmong(known.value, target, options);
  if (!current.ok || current.value === null) return current;
  if (observedActive !== undefined && observedActive !== current.value) {
    return cannotCompute("rule-disagrees-with-broker", `the broker made ${observedActive} active on ${target.topic}, the rule picks ${current.value}`);
  }
  return pickAmong(withoutOne(known.value, current.value), target, options);
}

/** The targets whose active consumer changes when `newcomer` joins. */
export function predictMovesOnJoin(
  consumers: FailoverConsumer[],
  newcomer: FailoverConsumer,
  targets: FailoverTarget[],
  options: FailoverRuleOptions,
): RuleResult<PartitionMove[]> {
  return diffAssignments(consumers, [...consumers, newcomer], targets, options);
}

/** The targets whose active consumer changes when the consumer named `leaving` leaves. */
export function predictMovesOnLeave(
  consumers: FailoverConsumer[],
  leaving: string,
  targets: FailoverTarget[],
  options: FailoverRuleOptions,
): RuleResult<PartitionMove[]> {
  const index = consumers.findIndex((c) => c.name === leaving);
  if (index < 0) return cannotCompute("unknown-consumer", `${leaving} is not a consumer of this subscription`);
  return diffAssignments(
    consumers,
    consumers.filter((_, i) => i !== index),
    targets,
    options,
  );
}

function diffAssignments(
  before: FailoverConsumer[],
  after: FailoverConsumer[],
  targets: FailoverTarget[],
  options: FailoverRuleOptions,
): RuleResult<PartitionMove[]> {
  const was = predictAssignment(before, targets, options);
  if (!was.ok) return was;
  const will = predictAssignment(after, targets, options);
  if (!will.ok) return will;
  const moves: PartitionMove[] = [];
  was.value.forEach((entry, i) => {
    const to = will.value[i]!.active;
    if (entry.active !== to) moves.push({ topic: entry.topic, partitionIndex: entry.partitionIndex, from: entry.active, to });
  });
  return computed(moves);
}

function requireNamesAndLevels(consumers: FailoverConsumer[]): RuleResult<NamedConsumer[]> {
  const named: NamedConsumer[] = [];
  for (const { name, priorityLevel } of consumers) {
    if (name === undefined) return cannotCompute("consumer-name-unknown", "a consumer has no name in the stats; the rule sorts names");
    if (priorityLevel === null) {
      return cannotCompute(
        "priority-level-unknown",
        `the priority level of ${name} is unknown: ConsumerStats does not carry it, and the rule sorts by it first`,
      );
    }
    named.push({ name, priorityLevel });
  }
  return computed(named);
}

/** The broker's sort: priority level ascending, then name (String.compareTo: UTF-16 code units). */
function sortForElection(consumers: NamedConsumer[]): NamedConsumer[] {
  return [...consumers].sort((a, b) => a.priorityLevel - b.priorityLevel || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function pickAmong(consumers: NamedConsumer[], target: FailoverTarget, options: FailoverRuleOptions): RuleResult<string | null> {
  if (consumers.length === 0) return computed(null);
  const sorted = sortForElection(consumers);
  // Only the consumers of the best (lowest) priority level take part.
  const electable = sorted.filter((c) => c.priorityLevel === sorted[0]!.priorityLevel);
  const usesRing = target.partitionIndex < 0 || (options.line === "4.2" && options.isConsistentHashingForPartitions === true);
  if (!usesRing) return computed(electable[target.partitionIndex % electable.length]!.name);
  return pickFromHashRing(electable, target.topic);
}

/**
 * The ring: for each electable consumer i (in sorted order) and j < 100, the point
 * Murmur3_32Hash(name + j) maps to i, a later i overwriting a colliding point. The active one
 * is at the first point at or after Murmur3Hash32(topic name), wrapping to the first point.
 */
function pickFromHashRing(electable: NamedConsumer[], topic: string): RuleResult<string> {
  const nonAscii = electable.find((c) => !isAscii(c.name));
  if (nonAscii) {
    return cannotCompute(
      "consumer-name-charset",
      `the broker hashes ${nonAscii.name} with its JVM's default charset, which Baton cannot know for non-ASCII names`,
    );
  }
  const topicBytes = encodeUtf8Exactly(topic);
  if (!topicBytes) return cannotCompute("key-not-utf8", `the topic name ${topic} is not well-formed text`);
  const ring = hashRingOf(electable.map((c) => c.name));
  const topicHash = pulsarMurmur3Hash(topicBytes);
  const at = findCeilingIndex(ring.points, topicHash);
  return computed(electable[ring.owners[at < ring.points.length ? at : 0]!]!.name);
}

type HashRing = { points: number[]; owners: number[] };

// The ring depends only on the electable names, and many subscriptions share one consumer set:
// built once per set.
const RING_CACHE_LIMIT = 1_024;
const ringCache = new Map<string, HashRing>();

/** Points are packed as hash * OWNER_SLOTS + owner index so one numeric sort orders them; exact
 * in a double while hash < 2^31 and there are fewer than 2^20 consumers. */
const OWNER_SLOTS = 2 ** 20;

function hashRingOf(sortedNames: string[]): HashRing {
  const cacheKey = sortedNames.join("\u0000");
  const cached = ringCache.get(cacheKey);
  if (cached) return cached;
  const packed = new Float64Array(sortedNames.length * RING_POINTS_PER_CONSUMER);
  let next = 0;
  sortedNames.forEach((name, index) => {
    for (let point = 0; point < RING_POINTS_PER_CONSUMER; point++) {
      packed[next++] = pulsarMurmur3Hash(encodeAscii(`${name}${point}`)) * OWNER_SLOTS + index;
    }
  });
  packed.sort();
  const ring: HashRing = { points: [], owners: [] };
  for (const entry of packed) {
    const point = Math.floor(entry / OWNER_SLOTS);
    const owner = entry % OWNER_SLOTS;
    // On a collision the broker's TreeMap.put keeps the later consumer: equal points sort by index.
    if (ring.points.at(-1) === point) ring.owners[ring.owners.length - 1] = owner;
    else {
      ring.points.push(point);
      ring.owners.push(owner);
    }
  }
  if (ringCache.size >= RING_CACHE_LIMIT) ringCache.clear();
  ringCache.set(cacheKey, ring);
  return ring;
}

/** The index of the first point >= value; points.length when there is none. */
function findCeilingIndex(points: number[], value: number): number {
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (points[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function withoutOne(consumers: NamedConsumer[], name: string): NamedConsumer[] {
  const index = consumers.findIndex((c) => c.name === name);
  return consumers.filter((_, i) => i !== index);
}
