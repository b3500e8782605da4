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

/** Consumers per (topic partition, subscription): "topic\nsubscription" -> sorted "name#id" list joined by ",". */
export type ConsumerSnapshot = Map<string, string>;

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

/**
 * Reads the labels of one series line, `name{a="x",b="y"} value`, in place in its bytes: from
 * `start` (just after the "{") to `lineEnd`. Gives the values of the labels in `names` (in that
 * order; undefined when absent) and the index just after the "}"; null when the labels are cut or
 * malformed. Only the wanted values become strings, each a copy of its own bytes (a slice of the
 * line would keep the whole line alive in the snapshot): a scrape reads 20,000 such lines at
 * 10,000 partitions, every second or two.
 */
export function readLabels(data: Buffer, start: number, lineEnd: number, names: readonly Buffer[]): { values: (string | undefined)[]; end: number } | null {
  const values = new Array<string | undefined>(names.length).fill(undefined);
  let i = start;
  while (i < lineEnd) {
    const byte = data[i];
    if (byte === CLOSE_BRACE) return { values, end: i + 1 };
    if (byte === COMMA || byte === SPACE) {
      i++;
      continue;
    }
    const eq = data.indexOf(EQUALS, i);
    if (eq < 0 || eq + 1 >= lineEnd || data[eq + 1] !== QUOTE) return null;
    let j = eq + 2;
    let hasEscape = false;
    for (; j < lineEnd && data[j] !== QUOTE; j++) {
      if (data[j] === BACKSLASH) {
        hasEscape = true;
        j++;
      }
    }
    if (j >= lineEnd) return null;
    for (let n = 0; n < names.length; n++) {
      if (isNameAt(data, i, eq, names[n]!)) {
        values[n] = decodeValue(data, eq + 2, j, hasEscape);
        break;
      }
    }
    i = j + 1;
  }
  return null;
}

export function createConsumerMetricsParser(): ConsumerMetricsParser {
  const members = new Map<string, string[]>();
  let consumerSeriesCount = 0;
  let topicConsumerCount = 0;
  /** The consumer-level family being read (the first one met), and `${family}{` as bytes. */
  let familyLinePrefix: Buffer | null = null;
  let isFamilyRead = false;

  /** One consumer-level series: the bytes of its line from just after the "{" to the newline. */
  function readConsumerLine(data: Buffer, labelsStart: number, lineEnd: number): void {
    const parsed = readLabels(data, labelsStart, lineEnd, CONSUMER_LABELS);
    const [topic, subscription, consumerName, consumerId] = parsed?.values ?? [];
    if (topic === undefined || subscription === undefined) return;
    consumerSeriesCount++;
    const key = snapshotKey(topic, subscription);
    const member = `${consumerName ?? ""}#${consumerId ?? ""}`;
    const list = members.get(key);
    if (list) list.push(member);
    else members.set(key, [member]);
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
        const isFamilyLine = data.length - lineStart >= familyLinePrefix.length && data.subarray(lineStart, lineStart + familyLinePrefix.length).equals(familyLinePrefix);
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
      if (nextTopicConsumersLine === null || (nextTopicConsumersLine >= 0 && nextTopicConsumersLine < lineStart)) nextTopicConsumersLine = findLine(data, lineStart, TOPIC_CONSUMERS_LINE);
      const next: number = nextConsumerLine < 0 ? nextTopicConsumersLine : nextTopicConsumersLine < 0 ? nextConsumerLine : Math.min(nextConsumerLine, nextTopicConsumersLine);
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
      const consumers: ConsumerSnapshot = new Map();
      for (const [key, list] of members) consumers.set(key, list.sort().join(","));
      return { consumers, consumerSeriesCount, topicConsumerCount };
    },
  };
}
