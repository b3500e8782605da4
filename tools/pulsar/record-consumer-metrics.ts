import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import { createFleet } from "../fleet/fleet";
import { createPartitionedTopic, createScratchNamespace } from "./admin-setup";
import { startBroker } from "./broker";

/**
 * `npm run fixtures:consumer-metrics`: starts a throwaway Pulsar 4.2.4 broker with
 * exposeConsumerLevelMetricsInPrometheus=true, opens a Failover subscription of two WebSocket
 * consumers (w1, w2) on a 3-partition topic and one consumer (solo) on a non-partitioned topic,
 * and writes what the broker really answers to tests/fixtures/pulsar/consumer-metrics/:
 * `GET /admin/v2/clusters`, `GET /admin/v2/brokers/<cluster>`, and `GET /metrics/` before and
 * after w1 is killed. Re-running replaces them.
 */

const OUT_DIR = path.resolve("tests", "fixtures", "pulsar", "consumer-metrics");

async function readText(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

async function main(): Promise<void> {
  const broker = await startBroker({ log: (line) => console.log(line), brokerConfig: { exposeConsumerLevelMetricsInPrometheus: true } });
  try {
    const scratch = await createScratchNamespace(broker.adminUrl, "metrics");
    const orders = scratch.topic("orders");
    await createPartitionedTopic(broker.adminUrl, orders, 3);
    const fleet = createFleet({ wsUrl: broker.wsUrl });
    await fleet.startGroup({ names: ["w1", "w2"], topic: orders, subscription: "workers", subscriptionType: "Failover" });
    await fleet.startConsumer({ name: "solo", topic: scratch.topic("audit"), subscription: "auditors", subscriptionType: "Failover" });
    mkdirSync(OUT_DIR, { recursive: true });
    const clusters = await readText(`${broker.adminUrl}/admin/v2/clusters`);
    writeFileSync(path.join(OUT_DIR, "clusters.json"), clusters);
    const cluster = (JSON.parse(clusters) as string[])[0]!;
    writeFileSync(path.join(OUT_DIR, "brokers.json"), await readText(`${broker.adminUrl}/admin/v2/brokers/${cluster}`));
    writeFileSync(path.join(OUT_DIR, "metrics-before.txt"), await readText(`${broker.adminUrl}/metrics/`));
    await fleet.consumer("w1").kill();
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(path.join(OUT_DIR, "metrics-after-kill.txt"), await readText(`${broker.adminUrl}/metrics/`));
    writeFileSync(
      path.join(OUT_DIR, "recorded.json"),
      `${JSON.stringify({ pulsarVersion: broker.version, topic: orders, recordedAt: new Date().toISOString() }, null, 2)}\n`,
    );
    await fleet.shutdown("kill");
    await scratch.cleanup();
  } finally {
    await broker.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
