import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Db } from "@/lib/db/client";
import { createFleet, type Fleet } from "@/tools/fleet/fleet";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import type { BrokerHandle } from "@/tools/pulsar/broker";
import { createTestDb, registerCluster, startPoller, testClusterConfig, waitFor, type RunningPoller } from "@/tests/support/poller-harness";
import { startTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// A broker restart, on a broker of this file's own (it is stopped and started again).
const POLL_INTERVAL_MS = 500;
const databaseUrl = getTestDatabaseUrl();
let broker: BrokerHandle;
let db: Db;
let fleet: Fleet;
let poller: RunningPoller | undefined;
let clusterId: number;
let topic: string;

const resources = () =>
  db.heldResource.findMany({
    where: { clusterId, subscription: "jobs" },
    orderBy: { partition: "asc" },
    select: { partition: true, holder: true, staleSince: true, lastError: true },
  });

beforeAll(async () => {
  broker = await startTestBroker();
  db = createTestDb(databaseUrl);
  const scratch = await createScratchNamespace(broker.adminUrl, "outage");
  topic = scratch.topic("jobs");
  await createPartitionedTopic(broker.adminUrl, topic, 2);
  fleet = createFleet({ wsUrl: broker.wsUrl });
  await fleet.startGroup({ names: ["a", "b"], topic, subscription: "jobs", subscriptionType: "Failover" });
  const cluster = testClusterConfig(`outage-${Date.now().toString(36)}`, broker.adminUrl, scratch.namespace, POLL_INTERVAL_MS);
  clusterId = await registerCluster(db, cluster);
  poller = startPoller({ databaseUrl, cluster, clusterId, pollerId: "outage-poller" });
});

afterAll(async () => {
  await poller?.stop();
  await fleet?.shutdown("kill");
  await broker?.stop();
  await db?.$disconnect();
});

describe("a broker restart", () => {
  it("while the broker is down: no change rows, the leaders kept and marked stale with the error", async () => {
    await waitFor(resources, (rows) => rows.length === 2 && rows.every((r) => r.holder !== null), "the leaders");
    const leaders = (await resources()).map((r) => r.holder);
    const changesBefore = await db.holderChange.count({ where: { clusterId } });

    await broker.stop({ keepData: true });
    const stale = await waitFor(resources, (rows) => rows.every((r) => r.staleSince !== null), "the state to turn stale");
    // Three more intervals of failing polls.
    const failedRuns = await db.pollRun.count({ where: { clusterId, errorCount: { gt: 0 } } });
    await waitFor(
      () => db.pollRun.count({ where: { clusterId, errorCount: { gt: 0 } } }),
      (n) => n >= failedRuns + 3,
      "three failed poll cycles",
    );

    expect(stale.map((r) => r.holder)).toEqual(leaders);
    expect(stale[0]!.lastError).toMatch(/cannot reach|no answer|HTTP 412/);
    expect(await db.holderChange.count({ where: { clusterId } })).toBe(changesBefore);
  });

  it("after it comes back: the leaderless period and the return are put down to the broker, nothing else is recorded", async () => {
    const changesBefore = await db.holderChange.count({ where: { clusterId } });
    await broker.start();
    // The broker dropped every WebSocket consumer; the clients reconnect once it is back.
    await waitFor(resources, (rows) => rows.every((r) => r.staleSince === null), "the state to be current again");
    await Promise.all(fleet.consumers.map((c) => c.start()));
    await waitFor(resources, (rows) => rows.every((r) => r.holder !== null), "the leaders to return");

    const changes = await db.holderChange.findMany({
      where: { clusterId },
      orderBy: { id: "asc" },
      skip: changesBefore,
      select: { kind: true, cause: true, isDuringGap: true, resource: { select: { partition: true } } },
    });
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) expect(change.cause).toBe("BROKER");
    // The first thing seen after the gap, per partition, is marked as having happened during it.
    for (const partition of [0, 1]) {
      expect(changes.find((c) => c.resource.partition === partition)).toMatchObject({ kind: "HOLDER_LOST", isDuringGap: true });
    }
  });
});
