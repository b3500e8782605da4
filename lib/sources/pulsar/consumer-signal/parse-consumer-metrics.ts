// Reads a broker's Prometheus text (`GET /metrics/`) chunk by chunk and keeps only what the
// consumer change signal needs: who is connected to each topic partition's subscriptions. The
// body is large (about 20 KB and 113 series per topic partition on Pulsar 4.2, so some 200 MB at
// 10,000 partitions): it is searched as bytes for the series wanted, only the label values needed
// of their lines are decoded, and no more than one chunk and one partial line are held at a time.
//
// Every consumer-level family lists every consumer once (TopicStats.printTopicStats writes the
// seven below for each consumer), and the broker writes each family as one block under its
// `# TYPE` line (PrometheusMetricStreams keeps a stream per family and flushes them whole; the
// same in 3.0 and 4.2). So the first consumer-level family read to its end is the whole consumer
// set, and the reading can stop there: at 10,000 partitions on 4.2.4 that was 5% of the body.
// Pure.

/** The consumer-level families: each holds one series per consumer, with consumer_name and consumer_id. */
const CONSUMER_FAMILIES = new Set([
  "pulsar_consumer_msg_rate_redeliver",
  "pulsar_consumer_unacked_messages",
  "pulsar_consumer_blocked_on_unacked_messages",
  "pulsar_consumer_msg_rate_out",
  "pulsar_consumer_msg_ack_rate",
  "pulsar_consumer_msg_throughput_out",
  "pulsar_consumer_available_permits",
]);
/** Per topic partition: how many consumers it has, whether or not consumer-level metrics are on. */
const TOPIC_CONSUMERS_SERIES = "pulsar_consumers_count{";
const NEWLINE = 0x0a;
/** Searched with the newline before them: a line that starts so (`pulsar_consumers_` does not). */
const CONSUMER_LINE = Buffer.from("\npulsar_consumer_");
const TOPIC_CONSUMERS_LINE = Buffer.from(`\n${TOPIC_CONSUMERS_SERIES}`);

/**
 * Consumers per (topic partition, subscription): "topic\nsubscription" -> the fingerprint of its
 * set of consumers (consumerSetFingerprint). A snapshot is only ever compared with the previous
 * one, so a number does: no consumer's name or id becomes a string, and no list is sorted.
 */
export type ConsumerSnapshot = Map<string, number>;

export type ParsedConsumerMetrics = {
  consumers: ConsumerSnapshot;
  /** Consumer-level series read (0 when the broker does not expose them). */
  consumerSeriesCount: number;
  /** The sum of pulsar_consumers_count: consumers the broker has, exposed per consumer or not. */
  topicConsumerCount: number;
};

export type ConsumerMetricsParser = {
  /** Reads one chunk; false once a whole consumer-level family has been read (the rest is not needed). */
  push(chunk: Uint8Array): boolean;
  finish(): ParsedConsumerMetrics;
};

/** The key of one (topic partition, subscription) in a snapshot: one flat string (join), kept until the next scrape. */
export function snapshotKey(topic: string, subscription: string): string {
  return [topic, subscription].join("\n");
}

/** The topic partition of a snapshot key. */
export function topicOfSnapshotKey(key: string): string {
  return key.slice(0, key.indexOf("\n"));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EQUALS = 0x3d;
const COMMA = 0x2c;
const SPACE = 0x20;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The labels a consumer line is read for, in the order readLabels gives their values. */
const CONSUMER_LABELS = [Buffer.from("topic"), Buffer.from("subscription"), Buffer.from("consumer_name"), Buffer.from("consumer_id")];
const NO_LABELS: readonly Buffer[] = [];

function isNameAt(data: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (data[start + k] !== name[k]) return false;
  return true;
}

/** A label value's text, with the escapes Prometheus writes (\\ \" \n) undone. */
function decodeValue(data: Buffer, start: number, end: number, hasEscape: boolean): string {
  const raw = data.toString("utf8", start, end);
  return hasEscape ? raw.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c)) : raw;
}

/** Fingerprints are sums modulo 2^48 of 48-bit member hashes: exact in a double, whatever the order of the members. */
const FINGERPRINT_MODULUS = 2 ** 48;
const MEMBER_SEPARATOR = 0x23; // "#"

/**
 * A consumer's 48-bit hash: two 32-bit lanes (cyrb53's mixing) over the bytes of its name, "#"
 * and its id, as they stand between the quotes (escapes included).
 */
function hashMember(data: Uint8Array, nameStart: number, nameEnd: number, idStart: number, idEnd: number): number {
  // Written out, not a closure: this runs for every consumer of every scrape.
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = nameStart; i < nameEnd; i++) {
    h1 = Math.imul(h1 ^ data[i]!, 2654435761);
    h2 = Math.imul(h2 ^ data[i]!, 1597334677);
  }
  h1 = Math.imul(h1 ^ MEMBER_SEPARATOR, 2654435761);
  h2 = Math.imul(h2 ^ MEMBER_SEPARATOR, 1597334677);
  for (let i = idStart; i < idEnd; i++) {
    h1 = Math.imul(h1 ^ data[i]!, 2654435761);
    h2 = Math.imul(h2 ^ data[i]!, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 & 0xffff) * 2 ** 32 + (h2 >>> 0);
}

/**
 * The fingerprint of a set of consumers, each a (name, consumer id) as the broker writes them
 * between the quotes: the same set gives the same number in any order; a consumer joining,
 * leaving or reconnecting (a new id) changes it, but for a chance of about 2^-48 (the full
 * cycle, which reads every topic, is the truth behind the signal).
 */
export function consumerSetFingerprint(members: readonly { name: string; id: string }[]): number {
  let sum = 0;
  for (const { name, id } of members) {
    const bytes = Buffer.from(`${name}#${id}`);
    sum = (sum + hashMember(bytes, 0, Buffer.byteLength(name), Buffer.byteLength(name) + 1, bytes.length)) % FINGERPRINT_MODULUS;
  }
  return sum;
}

/**
 * Where the values of the labels in `names` lie in one series line, `name{a="x",b="y"} value`:
 * from `start` (just after the "{") to `lineEnd`. `ranges` gets, per name in that order, the start
 * and end of its value between the quotes (-1, -1 when absent) and whether it has an escape (1
 * or 0). Returns the index just after the "}", or -1 when the labels are cut or malformed.
 */
export function findLabelValues(data: Buffer, start: number, lineEnd: number, names: readonly Buffer[], ranges: Int32Array): number {
  ranges.fill(-1, 0, names.length * 3);
  let i = start;
  while (i < lineEnd) {
    const byte = data[i];
    if (byte === CLOSE_BRACE) return i + 1;
    if (byte === COMMA || byte === SPACE) {
      i++;
      continue;
    }
    const eq = data.indexOf(EQUALS, i);
    if (eq < 0 || eq + 1 >= lineEnd || data[eq + 1] !== QUOTE) return -1;
    let j = eq + 2;
    let hasEscape = 0;
    for (; j < lineEnd && data[j] !== QUOTE; j++) {
      if (data[j] === BACKSLASH) {
        hasEscape = 1;
        j++;
      }
    }
    if (j >= lineEnd) return -1;
    for (let n = 0; n < names.length; n++) {
      if (isNameAt(data, i, eq, names[n]!)) {
        ranges[n * 3] = eq + 2;
        ranges[n * 3 + 1] = j;
        ranges[n * 3 + 2] = hasEscape;
        break;
      }
    }
    i = j + 1;
  }
  return -1;
}

/**
 * Reads the labels of one series line, `name{a="x",b="y"} value`, in place in its bytes: from
 * `start` (just after the "{") to `lineEnd`. Gives the values of the labels in `names` (in that
 * order; undefined when absent) and the index just after the "}"; null when the labels are cut or
 * malformed. Each value is a copy of its own bytes (a slice of the line would keep the whole line
 * alive).
 */
export function readLabels(data: Buffer, start: number, lineEnd: number, names: readonly Buffer[]): { values: (string | undefined)[]; end: number } | null {
  const ranges = new Int32Array(names.length * 3);
  const end = findLabelValues(data, start, lineEnd, names, ranges);
  if (end < 0) return null;
  const values = names.map((_, n) => (ranges[n * 3]! < 0 ? undefined : decodeValue(data, ranges[n * 3]!, ranges[n * 3 + 1]!, ranges[n * 3 + 2] === 1)));
  return { values, end };
}

/** Where findLabelValues puts topic, subscription, consumer_name and consumer_id. */
const TOPIC = 0;
const SUBSCRIPTION = 3;
const CONSUMER_NAME = 6;
const CONSUMER_ID = 9;

function isSameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a[aStart + k] !== b[bStart + k]) return false;
  return true;
}

export function createConsumerMetricsParser(): ConsumerMetricsParser {
  const consumers: ConsumerSnapshot = new Map();
  let consumerSeriesCount = 0;
  let topicConsumerCount = 0;
  /** The consumer-level family being read (the first one met), and `${family}{` as bytes. */
  let familyLinePrefix: Buffer | null = null;
  let isFamilyRead = false;
  const ranges = new Int32Array(CONSUMER_LABELS.length * 3);
  // The broker writes a subscription's consumers on consecutive lines: the key of the line before
  // is kept with where its topic and subscription lie (in that line's chunk, held until the key
  // changes), so that a key is decoded once per subscription, not once per consumer.
  let lastKey: string | null = null;
  let lastData: Buffer = Buffer.alloc(0);
  let lastTopicStart = 0;
  let lastTopicLength = 0;
  let lastSubscriptionStart = 0;
  let lastSubscriptionLength = 0;

  function keyOf(data: Buffer): string {
    const topicStart = ranges[TOPIC]!;
    const topicLength = ranges[TOPIC + 1]! - topicStart;
    const subscriptionStart = ranges[SUBSCRIPTION]!;
    const subscriptionLength = ranges[SUBSCRIPTION + 1]! - subscriptionStart;
    const isLastKey =
      lastKey !== null &&
      topicLength === lastTopicLength &&
      subscriptionLength === lastSubscriptionLength &&
      isSameBytes(data, subscriptionStart, lastData, lastSubscriptionStart, subscriptionLength) &&
      isSameBytes(data, topicStart, lastData, lastTopicStart, topicLength);
    if (isLastKey) return lastKey!;
    lastData = data;
    lastTopicStart = topicStart;
    lastTopicLength = topicLength;
    lastSubscriptionStart = subscriptionStart;
    lastSubscriptionLength = subscriptionLength;
    lastKey = snapshotKey(
      decodeValue(data, topicStart, topicStart + topicLength, ranges[TOPIC + 2] === 1),
      decodeValue(data, subscriptionStart, subscriptionStart + subscriptionLength, ranges[SUBSCRIPTION + 2] === 1),
    );
    return lastKey;
  }

  /** One consumer-level series: the bytes of its line from just after the "{" to the newline. */
  function readConsumerLine(data: Buffer, labelsStart: number, lineEnd: number): void {
    if (findLabelValues(data, labelsStart, lineEnd, CONSUMER_LABELS, ranges) < 0) return;
    if (ranges[TOPIC]! < 0 || ranges[SUBSCRIPTION]! < 0) return;
    consumerSeriesCount++;
    const key = keyOf(data);
    // An absent name or id hashes as empty, as consumerSetFingerprint's "" does.
    const nameStart = Math.max(ranges[CONSUMER_NAME]!, 0);
    const idStart = Math.max(ranges[CONSUMER_ID]!, 0);
    const member = hashMember(data, nameStart, Math.max(ranges[CONSUMER_NAME + 1]!, 0), idStart, Math.max(ranges[CONSUMER_ID + 1]!, 0));
    consumers.set(key, ((consumers.get(key) ?? 0) + member) % FINGERPRINT_MODULUS);
  }

  function readTopicConsumersLine(data: Buffer, lineStart: number, lineEnd: number): void {
    const parsed = readLabels(data, lineStart + TOPIC_CONSUMERS_SERIES.length, lineEnd, NO_LABELS);
    const value = parsed ? Number(data.toString("latin1", parsed.end, lineEnd).trim().split(" ")[0]) : Number.NaN;
    if (Number.isFinite(value)) topicConsumerCount += value;
  }

  /** The first line at or after `from` that starts with `wanted` (a newline and a name), or -1. */
  function findLine(data: Buffer, from: number, wanted: Buffer): number {
    if (from === 0 && data.subarray(0, wanted.length - 1).equals(wanted.subarray(1))) return 0;
    const at = data.indexOf(wanted, Math.max(0, from - 1));
    return at < 0 ? -1 : at + 1;
  }

  /** Reads the wanted lines of `data`, which starts at a line start and ends with a newline. */
  function readLines(data: Buffer): void {
    let lineStart = 0;
    // The next line of each kind at or after lineStart; -1: none left in `data`; null: not
    // searched yet (a chunk read inside the family's block needs no search). Searched again only
    // once passed, so each kind's search runs over `data` once.
    let nextConsumerLine: number | null = null;
    let nextTopicConsumersLine: number | null = null;
    while (lineStart < data.length && !isFamilyRead) {
      if (familyLinePrefix) {
        // Inside the family's block: it goes on line after line, and ends at the first other line.
        const isFamilyLine =
          data.length - lineStart >= familyLinePrefix.length && data.subarray(lineStart, lineStart + familyLinePrefix.length).equals(familyLinePrefix);
        if (!isFamilyLine) {
          isFamilyRead = true;
          return;
        }
        const lineEnd = data.indexOf(NEWLINE, lineStart);
        readConsumerLine(data, lineStart + familyLinePrefix.length, lineEnd);
        lineStart = lineEnd + 1;
        continue;
      }
      if (nextConsumerLine === null || (nextConsumerLine >= 0 && nextConsumerLine < lineStart)) nextConsumerLine = findLine(data, lineStart, CONSUMER_LINE);
      if (nextTopicConsumersLine === null || (nextTopicConsumersLine >= 0 && nextTopicConsumersLine < lineStart))
        nextTopicConsumersLine = findLine(data, lineStart, TOPIC_CONSUMERS_LINE);
      const next: number =
        nextConsumerLine < 0 ? nextTopicConsumersLine : nextTopicConsumersLine < 0 ? nextConsumerLine : Math.min(nextConsumerLine, nextTopicConsumersLine);
      if (next < 0) return;
      const lineEnd = data.indexOf(NEWLINE, next);
      lineStart = lineEnd + 1;
      if (next === nextTopicConsumersLine) {
        readTopicConsumersLine(data, next, lineEnd);
        continue;
      }
      const brace = data.indexOf(OPEN_BRACE, next);
      if (brace < 0 || brace > lineEnd) continue;
      const family = data.toString("latin1", next, brace);
      if (!CONSUMER_FAMILIES.has(family)) continue;
      familyLinePrefix = Buffer.from(`${family}{`);
      readConsumerLine(data, brace + 1, lineEnd);
    }
  }

  /** The bytes after the last newline seen: the start of a line that the next chunk ends. */
  let rest: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      if (isFamilyRead) return false;
      const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let start = 0;
      if (rest.length > 0) {
        // Only the line cut between the chunks is joined; the chunk itself is read in place.
        const firstNewline = data.indexOf(NEWLINE);
        if (firstNewline < 0) {
          rest = Buffer.concat([rest, data]);
          return true;
        }
        readLines(Buffer.concat([rest, data.subarray(0, firstNewline + 1)]));
        rest = Buffer.alloc(0);
        start = firstNewline + 1;
      }
      const lastNewline = data.lastIndexOf(NEWLINE);
      if (lastNewline >= start) readLines(data.subarray(start, lastNewline + 1));
      rest = Buffer.from(data.subarray(Math.max(start, lastNewline + 1)));
      return !isFamilyRead;
    },
    finish() {
      if (rest.length > 0 && !isFamilyRead) readLines(Buffer.concat([rest, Buffer.from([NEWLINE])]));
      rest = Buffer.alloc(0);
      return { consumers, consumerSeriesCount, topicConsumerCount };
    },
  };
}
