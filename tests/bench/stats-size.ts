// Benchmark: how large a partitioned-stats answer gets on a real broker, and what reading it
// costs. On each broker version: a topic of 10 partitions with 2 Failover consumers, and one of
// 100 partitions with 20 Key_Shared consumers (the consumers carry their hash ranges), each with
// one producer. For each, the answer to Baton's query (lib/pulsar/admin-client.ts STATS_QUERY) and,
// to tell whether the broker honours excludePublishers, the same without it.
//
// Prints per topic: bytes, JSON.parse + schema time, heap grown by the parse, the observations
// Baton keeps; whether the publishers were left out; and the load average. Then the broker's
// Prometheus scrape (/metrics/, exposeConsumerLevelMetricsInPrometheus=true) with both topics'
// consumers: its bytes, and the bytes each consumer-partition adds (what a change signal built
// on that scrape reads per broker).
//
// Run: flock /tmp/baton-bench.lock npm run bench:stats-size [-- --versions 4.2.4,3.0.7 --runs 5]
import os from "node:os";
import { parseArgs } from "node:util";

import { fetch as undiciFetch } from "undici";

import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { STATS_QUERY } from "@/lib/pulsar/admin-client";
import { partitionedTopicStatsSchema } from "@/lib/pulsar/schemas";
import { parseTopicName, topicPath } from "@/lib/pulsar/topic-name";
import { observeTopicStats } from "@/lib/sources/pulsar/observe-topic";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import { isPulsarVersion, type PulsarVersion } from "@/tools/pulsar/build-launcher";
import { startBroker } from "@/tools/pulsar/broker";

const { values } = parseArgs({ options: { versions: { type: "string", default: "4.2.4,3.0.7" }, runs: { type: "string", default: "5" } } });
const RUNS = Number(values.runs);
const VERSIONS = values.versions.split(",").map((v) => {
  if (!isPulsarVersion(v)) throw new Error(`--versions: ${v} is not a Pulsar version the launcher knows`);
  return v as PulsarVersion;
});

type Shape = { label: string; partitions: number; consumers: number; type: "Failover" | "Key_Shared" };
const SHAPES: Shape[] = [
  { label: "10 partitions x 2 Failover consumers", partitions: 10, consumers: 2, type: "Failover" },
  { label: "100 partitions x 20 Key_Shared consumers", partitions: 100, consumers: 20, type: "Key_Shared" },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => `load average ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cores`;

async function fetchText(url: string): Promise<string> {
  const response = await undiciFetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  return response.text();
}

function countPublishers(body: unknown): number {
  const partitions = (body as { partitions?: Record<string, { publishers?: unknown[] }> }).partitions ?? {};
  return Object.values(partitions).reduce((sum, p) => sum + (p.publishers?.length ?? 0), 0);
}

async function measure(adminUrl: string, topic: string, shape: Shape): Promise<void> {
  const name = parseTopicName(topic)!.topic;
  const base = `${adminUrl}/admin/v2/${topicPath(name)}/partitioned-stats?perPartition=true`;
  const withoutExclude = STATS_QUERY.replace("excludePublishers=true&", "");
  const text = await fetchText(`${base}&${STATS_QUERY}`);
  const textWithPublishers = await fetchText(`${base}&${withoutExclude}`);
  const parseMs: number[] = [];
  const heapMb: number[] = [];
  let observations = 0;
  for (let run = 0; run < RUNS; run++) {
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const start = performance.now();
    const stats = partitionedTopicStatsSchema.parse(JSON.parse(text));
    observations = 0;
    for (const [partitionName, partitionStats] of Object.entries(stats.partitions))
      observations += observeTopicStats(name, parseTopicName(partitionName)!.partition, partitionStats).length;
    parseMs.push(performance.now() - start);
    heapMb.push((process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024);
  }
  const publishers = countPublishers(JSON.parse(text));
  const publishersWithout = countPublishers(JSON.parse(textWithPublishers));
  console.log(
    `  ${shape.label}: ${Buffer.byteLength(text)} bytes with Baton's query (${Buffer.byteLength(textWithPublishers)} without excludePublishers); ` +
      `parse + schema + observations median ${median(parseMs).toFixed(1)} ms, heap grown ${median(heapMb).toFixed(1)} MB; ${observations} observations kept; ` +
      `publishers listed: ${publishers} with excludePublishers=true, ${publishersWithout} without (${publishers === 0 && publishersWithout > 0 ? "honoured" : "not honoured"}); ${load()}`,
  );
}

async function runVersion(version: PulsarVersion): Promise<void> {
  const broker = await startBroker({
    version,
    keepData: false,
    brokerConfig: { exposeConsumerLevelMetricsInPrometheus: true, exposeTopicLevelMetricsInPrometheus: true },
  });
  let fleet: Fleet | null = null;
  try {
    fleet = createFleet({ wsUrl: broker.wsUrl });
    const scratch = await createScratchNamespace(broker.adminUrl, "stats-size");
    console.log(`Pulsar ${version}:`);
    const scrapeBefore = Buffer.byteLength(await fetchText(`${broker.adminUrl}/metrics/`));
    for (const [index, shape] of SHAPES.entries()) {
      const topic = scratch.topic(`sized-${index}`);
      await createPartitionedTopic(broker.adminUrl, topic, shape.partitions);
      await fleet.startGroup({
        names: Array.from({ length: shape.consumers }, (_, i) => `c${i}`),
        topic,
        subscription: "workers",
        subscriptionType: shape.type,
      });
      await fleet.openProducer({ topic, keys: ["a"] });
      await measure(broker.adminUrl, topic, shape);
    }
    const consumerPartitions = SHAPES.reduce((sum, shape) => sum + shape.partitions * shape.consumers, 0);
    const scrapeStart = performance.now();
    const scrapeBytes = Buffer.byteLength(await fetchText(`${broker.adminUrl}/metrics/`));
    const scrapeMs = performance.now() - scrapeStart;
    const consumerLines = (await fetchText(`${broker.adminUrl}/metrics/`)).split("\n").filter((line) => line.startsWith("pulsar_consumer_")).length;
    console.log(
      `  /metrics/ with consumer-level metrics: ${scrapeBytes} bytes in ${scrapeMs.toFixed(0)} ms (${scrapeBefore} before the topics); ` +
        `${consumerLines} pulsar_consumer_ lines for ${consumerPartitions} consumer-partitions; ${((scrapeBytes - scrapeBefore) / consumerPartitions).toFixed(0)} bytes per consumer-partition; ${load()}`,
    );
  } finally {
    await fleet?.shutdown("kill");
    await broker.stop();
  }
}

async function main(): Promise<void> {
  if (!globalThis.gc) console.log("(run with node --expose-gc for steadier heap figures)");
  for (const version of VERSIONS) await runVersion(version);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
