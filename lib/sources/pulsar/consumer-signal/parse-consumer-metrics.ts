// Reads a broker's Prometheus text (`GET /metrics/`) chunk by chunk and keeps only what the
// consumer change signal needs: who is connected to each topic partition's subscriptions. The
// body is large (about 20 KB and 113 series per topic partition on Pulsar 4.2, so some 200 MB at
// 10,000 partitions): it is searched as bytes for the two series wanted, only their lines are
// decoded, and no more than one chunk and one partial line are held at a time. Pure.

/** One series per consumer: the broker writes every consumer-level metric once per consumer. */
const CONSUMER_SERIES = "pulsar_consumer_msg_rate_out{";
/** Per topic partition: how many consumers it has, whether or not consumer-level metrics are on. */
const TOPIC_CONSUMERS_SERIES = "pulsar_consumers_count{";
const NEWLINE = 0x0a;
const WANTED = [CONSUMER_SERIES, TOPIC_CONSUMERS_SERIES].map((name) => Buffer.from(`\n${name}`));

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
  push(chunk: Uint8Array): void;
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

  function readLine(line: string): void {
    if (line.startsWith(CONSUMER_SERIES)) {
      const parsed = parseLabels(line, CONSUMER_SERIES.length);
      const topic = parsed?.labels.get("topic");
      const subscription = parsed?.labels.get("subscription");
      if (!parsed || topic === undefined || subscription === undefined) return;
      consumerSeriesCount++;
      const key = snapshotKey(topic, subscription);
      const member = `${parsed.labels.get("consumer_name") ?? ""}#${parsed.labels.get("consumer_id") ?? ""}`;
      const list = members.get(key);
      if (list) list.push(member);
      else members.set(key, [member]);
    } else if (line.startsWith(TOPIC_CONSUMERS_SERIES)) {
      const parsed = parseLabels(line, TOPIC_CONSUMERS_SERIES.length);
      const value = parsed ? Number(line.slice(parsed.end).trim().split(" ")[0]) : Number.NaN;
      if (Number.isFinite(value)) topicConsumerCount += value;
    }
  }

  /** Reads the wanted lines of `data`, whose every line up to `end` (a newline) is complete. */
  function readWanted(data: Buffer, end: number): void {
    for (const wanted of WANTED) {
      // `data` starts at a line start, and the search wants a newline before the name.
      if (data.subarray(0, wanted.length - 1).equals(wanted.subarray(1))) readLine(data.toString("utf8", 0, data.indexOf(NEWLINE)));
      for (let at = data.indexOf(wanted); at >= 0 && at < end; at = data.indexOf(wanted, at + 1)) {
        const lineEnd = data.indexOf(NEWLINE, at + 1);
        readLine(data.toString("utf8", at + 1, lineEnd < 0 ? data.length : lineEnd));
      }
    }
  }

  /** The bytes after the last newline seen: the start of a line that the next chunk ends. */
  let rest: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      const data = rest.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([rest, chunk]);
      const lastNewline = data.lastIndexOf(NEWLINE);
      if (lastNewline < 0) {
        rest = Buffer.from(data);
        return;
      }
      readWanted(data.subarray(0, lastNewline + 1), lastNewline);
      rest = Buffer.from(data.subarray(lastNewline + 1));
    },
    finish() {
      if (rest.length > 0) readWanted(Buffer.concat([rest, Buffer.from([NEWLINE])]), rest.length);
      rest = Buffer.alloc(0);
      const consumers: ConsumerSnapshot = new Map();
      for (const [key, list] of members) consumers.set(key, list.sort().join(","));
      return { consumers, consumerSeriesCount, topicConsumerCount };
    },
  };
}
