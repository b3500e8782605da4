import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";
import { discoverTopics } from "@/lib/sources/pulsar/discover-topics";
import { isPulsarCluster, type PulsarClusterConfig } from "@/lib/sources/pulsar/pulsar-config";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import { createNonPartitionedTopic, createPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";

const broker = getTestBroker();
let scratch: Awaited<ReturnType<typeof createTestNamespace>>;

function cluster(scope: unknown): PulsarClusterConfig {
  const [parsed] = loadConfig({ BATON_CLUSTERS: JSON.stringify([{ name: "d", adminUrl: broker.adminUrl, scope }]) }).clusters;
  if (!parsed || !isPulsarCluster(parsed)) throw new Error("expected one Pulsar cluster");
  return parsed;
}

const limiter = () => createRateLimiter({ requestsPerSecond: 50, maxConcurrency: 4 });

beforeAll(async () => {
  scratch = await createTestNamespace("discovery");
  await createPartitionedTopic(broker.adminUrl, scratch.topic("orders"), 3);
  await createPartitionedTopic(broker.adminUrl, scratch.topic("orders-eu"), 2);
  await createNonPartitionedTopic(broker.adminUrl, scratch.topic("payments"));
});

afterAll(async () => {
  await scratch?.cleanup();
});

describe("topic discovery on the real broker", () => {
  it("lists a namespace's topics once each, partitioned topics folded, partitions not listed as topics", async () => {
    const topics = await discoverTopics(cluster({ namespaces: [scratch.namespace] }), limiter());
    expect(topics.map((t) => [t.fullName, t.isPartitioned])).toEqual([
      [scratch.topic("orders"), true],
      [scratch.topic("orders-eu"), true],
      [scratch.topic("payments"), false],
    ]);
  });

  it("narrows to topic patterns", async () => {
    const topics = await discoverTopics(cluster({ topics: [scratch.topic("orders*")] }), limiter());
    expect(topics.map((t) => t.fullName)).toEqual([scratch.topic("orders"), scratch.topic("orders-eu")]);
  });

  it("finds the tenant's topics through its namespaces, and everything without Pulsar's own tenant", async () => {
    expect((await discoverTopics(cluster({ tenants: [scratch.tenant] }), limiter())).map((t) => t.fullName)).toContain(scratch.topic("payments"));
    const everything = await discoverTopics(cluster({ everything: true }), limiter());
    expect(everything.map((t) => t.fullName)).toContain(scratch.topic("orders"));
    expect(everything.some((t) => t.name.tenant === "pulsar" || t.name.local.startsWith("__"))).toBe(false);
  });
});
