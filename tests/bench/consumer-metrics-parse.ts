// Benchmark: the consumer change signal's parser on a /metrics/ body shaped as Pulsar 4.2.4 writes
// it at 10,000 partition-subscriptions (1,000 topics x 10 partitions, two consumers each): the
// first consumer-level family comes about 5% into the body (here: the pulsar_consumers_count line
// and 20 other topic-level series of the first 500 partitions), then its 20,000 lines, then the
// next family's header, where the parser stops (the rest of the body is never read).
// Fed in 64 KB chunks as a response stream hands them over. Prints the wall and CPU time of each
// parse and the consumers it found. Run: npm run bench:consumer-parse [-- --runs 8]
import { parseArgs } from "node:util";

import { createConsumerMetricsParser } from "@/lib/sources/pulsar/consumer-signal/parse-consumer-metrics";

const { values } = parseArgs({ options: { runs: { type: "string", default: "8" } } });
const RUNS = Number(values.runs);
const CHUNK_BYTES = 65_536;

function buildBody(): Buffer {
  const ns = "bench-scale-abc123/ns";
  const lines: string[] = [];
  for (let t = 0; t < 50; t++) {
    for (let p = 0; p < 10; p++) {
      const topic = `persistent://${ns}/topic-${t}-partition-${p}`;
      lines.push(`pulsar_consumers_count{cluster="standalone",namespace="${ns}",topic="${topic}"} 2`);
      for (let x = 0; x < 20; x++) lines.push(`pulsar_other_series_${x}{cluster="standalone",namespace="${ns}",topic="${topic}"} 0.0`);
    }
  }
  lines.push("# TYPE pulsar_consumer_msg_rate_out gauge");
  for (let t = 0; t < 1000; t++) {
    for (let p = 0; p < 10; p++) {
      for (const c of ["a", "b"]) {
        lines.push(
          `pulsar_consumer_msg_rate_out{cluster="standalone",namespace="${ns}",topic="persistent://${ns}/topic-${t}-partition-${p}",subscription="workers",consumer_name="topic-${t}-${c}",consumer_id="${t * 100 + p}"} 0.0`,
        );
      }
    }
  }
  lines.push("# TYPE pulsar_consumer_msg_ack_rate gauge");
  return Buffer.from(`${lines.join("\n")}\n`);
}

const body = buildBody();
console.log(`body: ${(body.length / 1e6).toFixed(1)} MB`);
for (let run = 0; run < RUNS; run++) {
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  const parser = createConsumerMetricsParser();
  for (let i = 0; i < body.length; i += CHUNK_BYTES) if (!parser.push(body.subarray(i, i + CHUNK_BYTES))) break;
  const parsed = parser.finish();
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `parse ${run + 1}: ${(performance.now() - startedAt).toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms; ${parsed.consumers.size} subscription partitions, ${parsed.consumerSeriesCount} consumer series`,
  );
}
