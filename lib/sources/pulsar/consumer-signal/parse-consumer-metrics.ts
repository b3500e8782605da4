// Reads a broker's Prometheus text (`GET /metrics/`) chunk by chunk and keeps only what the
// consumer change signal needs: who is connected to each topic partition's subscriptions. The
// body is large (about 20 KB and 113 series per topic partition on Pulsar 4.2, so some 200 MB at
// 10,000 partitions): it is searched as bytes for the series wanted, only their lines are
// decoded, and no more than one chunk and one partial line are held at a time.
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

/** The key of one (topic partition, subscription) in a snapshot. */
export function snapshotKey(topic: string, subscription: string): string {
  return `${topic}\n${subscription}`;
}

/** The topic partition of a snapshot key. */
export function topicOfSnapshotKey(key: string): string {
  return key.slice(0, key.indexOf("\n"));
}

/** Labels of one series line, `name{a="x",b="y"} value`; escapes \\ \" \n as Prometheus writes them. */
export function parseLabels(line: string, start: number): { labels: Map<string, string>; end: number } | null {
  const labels = new Map<string, string>();
  let i = start;
  while (i < line.length) {
    if (line[i] === "}") return { labels, end: i + 1 };
    if (line[i] === ",") {
      i++;
      continue;
    }
    const eq = line.indexOf("=", i);
    if (eq < 0 || line[eq + 1] !== '"') return null;
    const name = line.slice(i, eq).trim();
    let value = "";
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] === "\\" && j + 1 < line.length) {
        const next = line[++j];
        value += next === "n" ? "\n" : next;
      } else value += line[j];
    }
    if (j >= line.length) return null;
    labels.set(name, value);
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

  function readConsumerLine(line: string, labelsStart: number): void {
    const parsed = parseLabels(line, labelsStart);
    const topic = parsed?.labels.get("topic");
    const subscription = parsed?.labels.get("subscription");
    if (!parsed || topic === undefined || subscription === undefined) return;
    consumerSeriesCount++;
    const key = snapshotKey(topic, subscription);
    const member = `${parsed.labels.get("consumer_name") ?? ""}#${parsed.labels.get("consumer_id") ?? ""}`;
    const list = members.get(key);
    if (list) list.push(member);
    else members.set(key, [member]);
  }

  function readTopicConsumersLine(line: string): void {
    const parsed = parseLabels(line, TOPIC_CONSUMERS_SERIES.length);
    const value = parsed ? Number(line.slice(parsed.end).trim().split(" ")[0]) : Number.NaN;
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
        readConsumerLine(data.toString("utf8", lineStart, lineEnd), familyLinePrefix.length);
        lineStart = lineEnd + 1;
        continue;
      }
      if (nextConsumerLine === null || (nextConsumerLine >= 0 && nextConsumerLine < lineStart)) nextConsumerLine = findLine(data, lineStart, CONSUMER_LINE);
      if (nextTopicConsumersLine === null || (nextTopicConsumersLine >= 0 && nextTopicConsumersLine < lineStart)) nextTopicConsumersLine = findLine(data, lineStart, TOPIC_CONSUMERS_LINE);
      const next: number = nextConsumerLine < 0 ? nextTopicConsumersLine : nextTopicConsumersLine < 0 ? nextConsumerLine : Math.min(nextConsumerLine, nextTopicConsumersLine);
      if (next < 0) return;
      const lineEnd = data.indexOf(NEWLINE, next);
      const line = data.toString("utf8", next, lineEnd);
      lineStart = lineEnd + 1;
      if (next === nextTopicConsumersLine) {
        readTopicConsumersLine(line);
        continue;
      }
      const family = line.slice(0, Math.max(0, line.indexOf("{")));
      if (!CONSUMER_FAMILIES.has(family)) continue;
      familyLinePrefix = Buffer.from(`${family}{`);
      readConsumerLine(line, familyLinePrefix.length);
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
