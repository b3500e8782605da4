import { readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { diffConsumerSnapshots } from "@/lib/sources/pulsar/consumer-signal/diff-consumer-snapshots";
import { consumerSetFingerprint, createConsumerMetricsParser, readLabels, snapshotKey } from "@/lib/sources/pulsar/consumer-signal/parse-consumer-metrics";

// Recorded from a real Pulsar 4.2.4 standalone with exposeConsumerLevelMetricsInPrometheus=true
// by `npm run fixtures:consumer-metrics` (tools/pulsar/record-consumer-metrics.ts): a Failover
// subscription "workers" of w1 and w2 on the 3-partition topic orders, one consumer "solo" on the
// non-partitioned topic audit; then w1 killed.
const DIR = path.resolve("tests/fixtures/pulsar/consumer-metrics");
const recorded = JSON.parse(readFileSync(path.join(DIR, "recorded.json"), "utf8")) as { topic: string };
const before = readFileSync(path.join(DIR, "metrics-before.txt"));
const afterKill = readFileSync(path.join(DIR, "metrics-after-kill.txt"));
const orders = recorded.topic;
const audit = orders.replace(/orders$/, "audit");

/** The series lines of one family in a recorded body. */
function seriesOf(body: Buffer, family: string): string[] {
  return body
    .toString("utf8")
    .split("\n")
    .filter((line) => line.startsWith(`${family}{`));
}

/** The consumers (name, id) that a family's lines list for one topic partition and subscription, read with a regular expression. */
function membersIn(body: Buffer, family: string, topic: string, subscription: string): { name: string; id: string }[] {
  return seriesOf(body, family)
    .filter((line) => line.includes(`topic="${topic}"`) && line.includes(`subscription="${subscription}"`))
    .map((line) => ({ name: /consumer_name="([^"]*)"/.exec(line)![1]!, id: /consumer_id="([^"]*)"/.exec(line)![1]! }));
}

/** Parses a body pushed in chunks of `size` characters (lines cut anywhere, as a stream cuts them). */
function parseInChunks(body: Buffer, size: number) {
  const parser = createConsumerMetricsParser();
  for (let i = 0; i < body.length; i += size) parser.push(body.slice(i, i + size));
  return parser.finish();
}

describe("consumer metrics parser", () => {
  it("lists every consumer of every topic partition and subscription from a real broker's /metrics/", () => {
    const parsed = parseInChunks(before, 4096);
    const family = "pulsar_consumer_msg_rate_out";
    const workers0 = membersIn(before, family, `${orders}-partition-0`, "workers");
    expect(workers0.map((m) => m.name).sort()).toEqual(["w1", "w2"]);
    expect(parsed.consumers.get(snapshotKey(`${orders}-partition-0`, "workers"))).toBe(consumerSetFingerprint(workers0));
    expect(parsed.consumers.get(snapshotKey(`${orders}-partition-2`, "workers"))).toBe(
      consumerSetFingerprint(membersIn(before, family, `${orders}-partition-2`, "workers")),
    );
    const solo = membersIn(before, family, audit, "auditors");
    expect(solo.map((m) => m.name)).toEqual(["solo"]);
    expect(parsed.consumers.get(snapshotKey(audit, "auditors"))).toBe(consumerSetFingerprint(solo));
    // Each partition's consumers have ids of their own: their fingerprints differ.
    expect(parsed.consumers.get(snapshotKey(`${orders}-partition-0`, "workers"))).not.toBe(
      parsed.consumers.get(snapshotKey(`${orders}-partition-2`, "workers")),
    );
    // Every consumer-level family lists each consumer once: the parser reads one of them.
    expect(parsed.consumerSeriesCount).toBe(seriesOf(before, "pulsar_consumer_msg_rate_out").length);
    expect(parsed.consumerSeriesCount).toBeGreaterThanOrEqual(7);
  });

  it("stops at the end of the first consumer-level family, and the rest of the body changes nothing", () => {
    const text = before.toString("utf8");
    const firstFamily = /^pulsar_consumer_[a-z_]+(?=\{)/m.exec(text)![0];
    const familyLines = seriesOf(before, firstFamily);
    const blockEnd = text.indexOf("\n", text.lastIndexOf(familyLines.at(-1)!)) + 1;
    expect(blockEnd).toBeLessThan(text.length / 2);
    // The whole body in one chunk: the parser asks for nothing more.
    expect(createConsumerMetricsParser().push(before)).toBe(false);
    // Cut right after the family's block plus the next line: the same consumers as the whole body.
    const cut = Buffer.from(text.slice(0, text.indexOf("\n", blockEnd) + 1));
    const parser = createConsumerMetricsParser();
    expect(parser.push(cut)).toBe(false);
    expect(parser.finish().consumers).toEqual(parseInChunks(before, 4096).consumers);
    // Cut inside the block: the parser still wants the rest.
    expect(createConsumerMetricsParser().push(Buffer.from(text.slice(0, blockEnd - 5)))).toBe(true);
  });

  it("gives the same answer whatever the chunk size", () => {
    const whole = parseInChunks(before, before.length);
    for (const size of [1, 7, 100, 65_536]) expect(parseInChunks(before, size)).toEqual(whole);
  });

  it("counts consumers but lists none when the broker does not expose consumer-level series", () => {
    const withoutConsumerSeries = Buffer.from(
      before
        .toString("utf8")
        .split("\n")
        .filter((line) => !line.startsWith("pulsar_consumer_"))
        .join("\n"),
    );
    const parsed = parseInChunks(withoutConsumerSeries, 1000);
    expect(parsed.consumerSeriesCount).toBe(0);
    expect(parsed.consumers.size).toBe(0);
    expect(parsed.topicConsumerCount).toBeGreaterThan(0);
  });

  it("reads a series on the first line and on a last line without a newline", () => {
    const body = Buffer.from(
      'pulsar_consumer_msg_rate_out{topic="a",subscription="s",consumer_name="x",consumer_id="1"} 0.0\npulsar_consumer_msg_rate_out{topic="b",subscription="s",consumer_name="y",consumer_id="2"} 0.0',
    );
    const expected = [consumerSetFingerprint([{ name: "x", id: "1" }]), consumerSetFingerprint([{ name: "y", id: "2" }])];
    for (const size of [1, 5, body.length]) expect([...parseInChunks(body, size).consumers.values()]).toEqual(expected);
  });

  it("fingerprints a set of consumers whatever their order, and tells a join, a leave and a reconnect apart", () => {
    const line = (topic: string, name: string, id: string) =>
      `pulsar_consumer_msg_rate_out{topic="${topic}",subscription="s",consumer_name="${name}",consumer_id="${id}"} 0.0`;
    // Lines of one subscription apart from each other (another topic between them) still add up.
    const body = Buffer.from(`${[line("t", "b", "2"), line("u", "x", "9"), line("t", "a", "1")].join("\n")}\n`);
    const parsed = parseInChunks(body, 3);
    const ab = consumerSetFingerprint([
      { name: "a", id: "1" },
      { name: "b", id: "2" },
    ]);
    expect(parsed.consumers.get(snapshotKey("t", "s"))).toBe(ab);
    expect(
      consumerSetFingerprint([
        { name: "b", id: "2" },
        { name: "a", id: "1" },
      ]),
    ).toBe(ab);
    const others = [
      [{ name: "a", id: "1" }],
      [
        { name: "a", id: "1" },
        { name: "b", id: "2" },
        { name: "c", id: "3" },
      ],
      [
        { name: "a", id: "3" },
        { name: "b", id: "2" },
      ],
      // The same bytes cut elsewhere between name and id are another consumer.
      [{ name: "a", id: "12" }],
      [{ name: "a1", id: "2" }],
    ];
    const fingerprints = new Set([ab, ...others.map(consumerSetFingerprint)]);
    expect(fingerprints.size).toBe(others.length + 1);
  });

  it("reads escaped label values, only those asked for, in the order asked", () => {
    const names = ["c", "a", "b", "absent"].map((name) => Buffer.from(name));
    const line = Buffer.from('a="x\\"y",b="back\\\\slash",c="new\\nline",d="ünïcode"} 1');
    const parsed = readLabels(line, 0, line.length, names);
    expect(parsed?.values).toEqual(["new\nline", 'x"y', "back\\slash", undefined]);
    expect(line.toString("utf8", parsed!.end)).toBe(" 1");
    const unicode = Buffer.from('d="ünïcode",x="1"}');
    expect(readLabels(unicode, 0, unicode.length, [Buffer.from("d")])?.values).toEqual(["ünïcode"]);
  });

  it("gives no labels for a line cut inside them", () => {
    for (const cut of ['a="unterminated', 'a="x",b', 'a="x"', 'a=x"}'])
      expect(readLabels(Buffer.from(cut), 0, Buffer.byteLength(cut), [Buffer.from("a")])).toBeNull();
  });
});

describe("consumer snapshot diff", () => {
  it("names the partitions a killed consumer left, and nothing else", () => {
    const changed = diffConsumerSnapshots(parseInChunks(before, 4096).consumers, parseInChunks(afterKill, 4096).consumers);
    expect([...changed].sort()).toEqual([0, 1, 2].map((p) => `${orders}-partition-${p}`));
  });

  it("sees a reconnect (same name, new consumer id), a new subscription and a vanished one", () => {
    const set = (...members: [string, string][]) => consumerSetFingerprint(members.map(([name, id]) => ({ name, id })));
    const previous = new Map([
      [snapshotKey("t-partition-0", "s"), set(["a", "1"], ["b", "2"])],
      [snapshotKey("gone", "s"), set(["x", "1"])],
      [snapshotKey("same", "s"), set(["y", "1"])],
    ]);
    const next = new Map([
      [snapshotKey("t-partition-0", "s"), set(["a", "3"], ["b", "2"])],
      [snapshotKey("new", "s"), set(["z", "1"])],
      [snapshotKey("same", "s"), set(["y", "1"])],
    ]);
    expect([...diffConsumerSnapshots(previous, next)].sort()).toEqual(["gone", "new", "t-partition-0"]);
  });
});
