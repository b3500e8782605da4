import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GET as getCauses } from "@/app/api/v1/violations/causes/route";
import { GET as getKey } from "@/app/api/v1/violations/key/route";
import { writeEvents } from "@/lib/ingest/write-events";
import type { KeyDrilldown } from "@/lib/violations/drilldown-types";
import type { ViolationCauses } from "@/lib/violations/queries/get-violation-causes";
import { VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import { createDeployment, getJson, MINUTE, openDb, openIngestPool, uniquePrefix, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";

// Every cause of a violation through the read API, from what a real database holds: a double
// run Baton's poller recorded from a lock's own records, a deployment, a lock whose hold expired while held, a partition whose leader moved away from a
// worker still inside, a routine leader change, and nothing at all. The /causes list and each
// key's drill-down must name the same cause (one classification), and the counts add up.

const BASE = "http://127.0.0.1/api/v1/violations";
const db = openDb();
const pool = openIngestPool();
const service = uniquePrefix("causes");
const lockCluster = uniquePrefix("locks");
const pulsarCluster = uniquePrefix("pulsar");
const topic = `persistent://causes/ns/${uniquePrefix("orders")}`;
const subscription = uniquePrefix("orders-sub");
const LOCK_KEY = "scheduler:leader";
const keys: Record<ViolationCause, string> = {
  "two-hands": uniquePrefix("key-two-hands"),
  rollout: uniquePrefix("key-rollout"),
  "holder-stalled": uniquePrefix("key-lock"),
  "worker-stalled": uniquePrefix("key-stall"),
  "failover-overlap": uniquePrefix("key-failover"),
  unexplained: uniquePrefix("key-alone"),
};
const NOW = Date.now();

/** A held resource and one change of it, as the poller writes them. */
async function createChange(input: {
  clusterId: number;
  kind: "PULSAR_SUBSCRIPTION_PARTITION" | "REDIS_LOCK";
  resourceKey: string;
  partition?: number;
  ending?: "EXPIRED" | "RELEASED";
  from: string;
  to: string;
  oldSeenAtMs: number;
  newSeenAtMs: number;
  details?: Record<string, string>;
}): Promise<void> {
  const isPulsar = input.kind === "PULSAR_SUBSCRIPTION_PARTITION";
  const resource = await db.heldResource.create({
    data: {
      clusterId: input.clusterId,
      kind: input.kind,
      resourceKey: input.resourceKey,
      ...(isPulsar ? { topic, partition: input.partition, subscription, subscriptionType: "Failover", firstSeenAt: new Date(NOW - 50 * MINUTE) } : {}),
      holder: input.to,
    },
    select: { id: true },
  });
  await db.holderChange.create({
    data: {
      clusterId: input.clusterId,
      resourceId: resource.id,
      kind: "HOLDER_CHANGED",
      ending: input.ending ?? null,
      fromHolder: input.from,
      toHolder: input.to,
      oldSeenAt: new Date(input.oldSeenAtMs),
      newSeenAt: new Date(input.newSeenAtMs),
      details: input.details ?? {},
      pollerEpoch: 1n,
    },
  });
}

beforeAll(async () => {
  const at = (minutesAgo: number, plusMs = 0) => NOW - minutesAgo * MINUTE + plusMs;
  const pulsar = await db.cluster.create({
    data: { name: pulsarCluster, adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5_000, isConfigured: false },
    select: { id: true },
  });
  const locks = await db.cluster.create({
    data: { name: lockCluster, kind: "REDIS", adminUrl: "redis://127.0.0.1:6379", pollIntervalMs: 5_000, isConfigured: false },
    select: { id: true },
  });
  // A rollout 40 to 35 minutes ago (its window, with the 5-minute grace, ends about 29 minutes ago).
  await createDeployment(db, { service, startedAtMs: at(40), finishedAtMs: at(35) });
  // The lock expired while sched-a held it, 10 minutes ago; sched-b took it.
  await createChange({
    clusterId: locks.id,
    kind: "REDIS_LOCK",
    resourceKey: LOCK_KEY,
    ending: "EXPIRED",
    from: "sched-a",
    to: "sched-b",
    oldSeenAtMs: at(10, -2_000),
    newSeenAtMs: at(10, -500),
    details: { expiresAtBefore: new Date(at(10, -1_000)).toISOString() },
  });
  // Partition 1's leader moved from w-a to w-b 20 minutes ago (w-a stalled inside); partition 2's 25 minutes ago (a routine handover).
  await createChange({
    clusterId: pulsar.id,
    kind: "PULSAR_SUBSCRIPTION_PARTITION",
    resourceKey: `${topic}|${subscription}|1`,
    partition: 1,
    from: "w-a",
    to: "w-b",
    oldSeenAtMs: at(20, -3_000),
    newSeenAtMs: at(20, -2_000),
  });
  await createChange({
    clusterId: pulsar.id,
    kind: "PULSAR_SUBSCRIPTION_PARTITION",
    resourceKey: `${topic}|${subscription}|2`,
    partition: 2,
    from: "w-c",
    to: "w-d",
    oldSeenAtMs: at(25, -3_000),
    newSeenAtMs: at(25, -2_000),
  });

  const onPartition = (partition: number) => ({ topic: `${topic}-partition-${partition}`, subscription, partition });
  const inside = (worker: string, enteredAtMs: number) => JSON.stringify([{ worker, enteredAt: enteredAtMs }]);
  await writeTestEvents(pool, [
    // Inside the rollout, on the partition whose leader moved (the rollout wins).
    { service, key: keys.rollout, worker: "w-new", counter: 1, observedAtMs: at(38), ...onPartition(3) },
    // Under the lock, after it expired while sched-a held it: sched-a still inside.
    {
      service,
      key: keys["holder-stalled"],
      worker: "sched-b",
      counter: 1,
      observedAtMs: at(10),
      lock: `${lockCluster}/${LOCK_KEY}`,
      othersInsideJson: inside("sched-a", at(10, -20_000)),
    },
    // w-a entered 15 s before the move away from it and was still inside when w-b entered.
    {
      service,
      key: keys["worker-stalled"],
      worker: "w-b",
      counter: 1,
      observedAtMs: at(20),
      ...onPartition(1),
      othersInsideJson: inside("w-a", at(20, -15_000)),
    },
    // w-c's message started just after its last sighting as leader: a handover's overlap.
    {
      service,
      key: keys["failover-overlap"],
      worker: "w-d",
      counter: 1,
      observedAtMs: at(25),
      ...onPartition(2),
      othersInsideJson: inside("w-c", at(25, -2_500)),
    },
    // Nothing around it. A client's own `twoHands` attribute decides nothing: only the poller's rows say so.
    {
      service,
      key: keys.unexplained,
      worker: "w-x",
      counter: 1,
      observedAtMs: at(5),
      ...onPartition(4),
      othersInsideJson: inside("w-y", at(5, -1_000)),
      attributesJson: JSON.stringify({ twoHands: "forged" }),
    },
  ]);
  // A double run the poller saw in a lock's records, on the partition whose leader moved 25
  // minutes ago, outside any rollout: the
  // lock's own records win over every explanation but a declared rollout (which the charts count
  // as inside deployments).
  const written = await writeEvents(
    pool,
    [
      {
        eventId: crypto.randomUUID(),
        key: keys["two-hands"],
        counter: 1,
        service,
        worker: "node-b",
        ...onPartition(2),
        traceId: null,
        observedAtMs: at(25),
        attributesJson: JSON.stringify({ twoHands: "quartz" }),
        othersInsideJson: inside("node-a", at(25, -30_000)),
        lock: `${lockCluster}/${LOCK_KEY}`,
      },
    ],
    "POLLER",
  );
  if (written !== 1) throw new Error(`wrote ${written} of 1 poller event`);
});

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await db.violationHour.deleteMany({ where: { service } });
  await db.deployment.deleteMany({ where: { service } });
  await db.cluster.deleteMany({ where: { name: { in: [pulsarCluster, lockCluster] } } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

describe("violation causes through the read API", () => {
  it("GET /causes names each violation's cause and counts every cause, adding up to the total", async () => {
    const { status, body } = await getJson(getCauses, `${BASE}/causes?range=1h&service=${service}`);
    expect(status).toBe(200);
    const answer = body as unknown as ViolationCauses;
    expect(Object.fromEntries(answer.violations.map((v) => [v.key, v.cause]))).toEqual(
      Object.fromEntries(VIOLATION_CAUSES.map((cause) => [keys[cause], cause])),
    );
    expect(answer.counts).toEqual({ "two-hands": 1, rollout: 1, "holder-stalled": 1, "worker-stalled": 1, "failover-overlap": 1, unexplained: 1 });
    expect(Object.values(answer.counts).reduce((a, b) => a + b, 0)).toBe(answer.violations.length);
    expect(answer.violations.find((v) => v.key === keys["holder-stalled"])).toMatchObject({ lock: `${lockCluster}/${LOCK_KEY}` });

    const filtered = await getJson(getCauses, `${BASE}/causes?range=1h&service=${service}&cause=worker-stalled`);
    expect((filtered.body as unknown as ViolationCauses).violations.map((v) => v.key)).toEqual([keys["worker-stalled"]]);
    expect((filtered.body as unknown as ViolationCauses).counts).toEqual(answer.counts);
  });

  it.each(VIOLATION_CAUSES.map((cause) => [cause]))("GET /key gives the %s violation the same cause as the list", async (cause) => {
    const { status, body } = await getJson(getKey, `${BASE}/key?key=${encodeURIComponent(keys[cause])}&range=1h`);
    expect(status).toBe(200);
    const drilldown = body as unknown as KeyDrilldown;
    expect(drilldown.explanations.map((e) => e.cause)).toEqual([cause]);
    expect(drilldown.causes[cause]).toBe(1);
  });
});
