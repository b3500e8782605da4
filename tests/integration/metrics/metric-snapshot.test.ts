import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET } from "@/app/metrics/route";
import { readMetricSnapshot } from "@/lib/metrics/read-metric-snapshot";
import { CLUSTER, createChange, createCluster, createResource, openDb, removeClusters, RUN } from "@/tests/integration/read-api/read-api-kit";

// What /metrics reads from the database: holders, resource states, change counters, sources,
// events and violations split by deployment (the violations page's rule), dead letters.

const db = openDb();
const service = `metrics-${RUN}`;
const deadLetterSource = `persistent://metrics-${RUN}/ns/ingest`;
const now = Date.now();
const minuteMs = 60_000;
const floorMinute = (ms: number) => ms - (ms % minuteMs);
const graceMs = 5 * minuteMs;
const settings = (maxResourceSeries: number) => ({ clusterNames: [CLUSTER], maxResourceSeries, deploymentGraceMs: graceMs, nowMs: now });

beforeAll(async () => {
  const clusterId = await createCluster(db, CLUSTER);
  const topic = `persistent://metrics-${RUN}/ns/orders`;
  const held = await createResource(db, clusterId, { topic, partition: 0, subscription: "billing", holder: "w2" });
  await createResource(db, clusterId, { topic, partition: 1, subscription: "billing", holder: "w3", staleSince: new Date(now - 10_000) });
  await createResource(db, clusterId, { topic, partition: 2, subscription: "billing", holder: "gone", goneAt: new Date(now - 10_000) });
  await createChange(db, clusterId, held, { kind: "HOLDER_CHANGED", from: "w1", to: "w2", at: new Date(now - 60_000) });
  await createChange(db, clusterId, held, { kind: "HOLDER_CHANGED", from: "w0", to: "w1", at: new Date(now - 120_000), cause: "BROKER" });
  await db.holderChange.create({
    data: {
      clusterId,
      resourceId: held,
      kind: "HOLDER_LOST",
      ending: "EXPIRED",
      fromHolder: "w9",
      toHolder: null,
      newSeenAt: new Date(now - 180_000),
      pollerEpoch: 1n,
    },
    select: { id: true },
  });

  // A deployment from 60 to 50 minutes ago: with 5 minutes of grace, minutes -60 .. -45 are inside.
  const deployStart = floorMinute(now) - 60 * minuteMs;
  await db.deployment.create({
    data: { service, version: "1", startedAt: new Date(deployStart + 10_000), finishedAt: new Date(deployStart + 10 * minuteMs) },
    select: { id: true },
  });
  await db.violationMinute.createMany({
    data: [
      { bucket: new Date(deployStart), service, subscription: "a", violations: 3, events: 30 }, // inside (the start's minute)
      { bucket: new Date(deployStart + 15 * minuteMs), service, subscription: "a", violations: 2, events: 20 }, // inside (grace)
      { bucket: new Date(deployStart + 16 * minuteMs), service, subscription: "a", violations: 1, events: 50 }, // outside
      { bucket: new Date(deployStart - minuteMs), service, subscription: "b", violations: 0, events: 7 }, // outside
    ],
  });
  await db.deadLetter.createMany({ data: [1, 2].map((n) => ({ source: deadLetterSource, messageId: `m${n}`, payload: "x", error: "not JSON" })) });
});

afterAll(async () => {
  await db.violationMinute.deleteMany({ where: { service } });
  await db.deployment.deleteMany({ where: { service } });
  await db.deadLetter.deleteMany({ where: { source: deadLetterSource } });
  await removeClusters(db, [CLUSTER]);
  await db.$disconnect();
});

describe("readMetricSnapshot", () => {
  it("reads holders of watched resources and counts by state, leaving out gone ones", async () => {
    const snapshot = await readMetricSnapshot(db, settings(100));
    expect(snapshot.holders).toEqual([
      { cluster: CLUSTER, kind: "PULSAR_SUBSCRIPTION_PARTITION", resource: `persistent://metrics-${RUN}/ns/orders|billing|0`, holder: "w2" },
      { cluster: CLUSTER, kind: "PULSAR_SUBSCRIPTION_PARTITION", resource: `persistent://metrics-${RUN}/ns/orders|billing|1`, holder: "w3" },
    ]);
    expect(snapshot.resources).toEqual([
      { cluster: CLUSTER, kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "held", count: 2 },
      { cluster: CLUSTER, kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "free", count: 0 },
      { cluster: CLUSTER, kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "stale", count: 1 },
    ]);
  });

  it("drops the per-resource holders above the limit (2 held, limit 1) or at 0", async () => {
    expect((await readMetricSnapshot(db, settings(2))).holders).toHaveLength(2);
    expect((await readMetricSnapshot(db, settings(1))).holders).toBeNull();
    expect((await readMetricSnapshot(db, settings(0))).holders).toBeNull();
  });

  it("counts stored changes by kind and cause (in the enums' order), with expirations, and reads the source's last poll", async () => {
    const snapshot = await readMetricSnapshot(db, settings(100));
    expect(snapshot.changes).toEqual([
      { cluster: CLUSTER, kind: "HOLDER_CHANGED", cause: "CLIENT", count: 1, expired: 0 },
      { cluster: CLUSTER, kind: "HOLDER_CHANGED", cause: "BROKER", count: 1, expired: 0 },
      { cluster: CLUSTER, kind: "HOLDER_LOST", cause: "CLIENT", count: 1, expired: 1 },
    ]);
    expect(snapshot.sources).toEqual([
      expect.objectContaining({ cluster: CLUSTER, kind: "pulsar", pollIntervalMs: 5000, lastPollErrors: 0, lastPollDurationMs: 100, staleResources: 1 }),
    ]);
    expect(snapshot.sources[0]!.lastPollSeconds).toBeGreaterThan(now / 1000 - 60);
  });

  it("splits a service's events and violations by whether a deployment (plus grace) covered the minute", async () => {
    const snapshot = await readMetricSnapshot(db, settings(100));
    expect(snapshot.services.filter((row) => row.service === service)).toEqual([
      { service, isInsideDeployment: false, events: 57, violations: 1 },
      { service, isInsideDeployment: true, events: 50, violations: 5 },
    ]);
    expect(snapshot.deadLetters.filter((row) => row.source === deadLetterSource)).toEqual([{ source: deadLetterSource, count: 2 }]);
  });
});

describe("GET /metrics", () => {
  it("answers the Prometheus text format with the database's state and the process's own metrics", async () => {
    const response = await GET(new Request("http://127.0.0.1/metrics"), {});
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const lines = (await response.text()).split("\n");
    expect(lines).toContain(
      `baton_resource_holder_info{cluster="${CLUSTER}",kind="PULSAR_SUBSCRIPTION_PARTITION",resource="persistent://metrics-${RUN}/ns/orders|billing|0",holder="w2"} 1`,
    );
    expect(lines).toContain(`baton_violations_total{service="${service}",deployment="inside"} 5`);
    expect(lines).toContain(`baton_hold_expirations_total{cluster="${CLUSTER}"} 1`);
    expect(lines.some((line) => line.startsWith("process_cpu_seconds_total "))).toBe(true);
    expect(lines).toContain("# TYPE baton_ingest_requests_total counter");
  });
});
