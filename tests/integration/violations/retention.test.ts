import { afterAll, describe, expect, it } from "vitest";

import { runRetention } from "@/lib/retention/run-retention";
import { MINUTE, openDb, openIngestPool, uniquePrefix, writeTestEvents } from "@/tests/integration/violations/violations-test-kit";

// Retention deletes the expired rows of the DEFAULT partitions (events of days that have no day
// partition: here, 2001) in bounded batches, keeps the rollup, stops when asked, and does not
// hold up ingestion. Its "now" is put far in the past (2001) so that the cutoff touches only this
// test's events, not those of other tests sharing the database. Day partitions are created and
// dropped in tests/integration/event-store/partitions.test.ts, on a database of its own.

const db = openDb();
const pool = openIngestPool();
const service = uniquePrefix("retention");
const NOW = Date.parse("2001-03-01T00:00:00Z");
const DAY = 86_400_000;

afterAll(async () => {
  await db.exclusivityEvent.deleteMany({ where: { service } });
  await db.violationMinute.deleteMany({ where: { service } });
  await Promise.all([db.$disconnect(), pool.end()]);
});

async function seed(oldCount: number, recentCount: number): Promise<void> {
  const old = Array.from({ length: oldCount }, (_, i) => ({ service, key: `k-${i}`, counter: i % 2, observedAtMs: NOW - 40 * DAY + i * 1_000 }));
  const recent = Array.from({ length: recentCount }, (_, i) => ({ service, key: `k-${i}`, counter: 1, observedAtMs: NOW - 10 * DAY + i * 1_000 }));
  await writeTestEvents(pool, [...old, ...recent]);
}

describe("runRetention", () => {
  it("deletes per-minute count rows older than the retention and keeps the newer ones and the rollup", async () => {
    const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000);
    const row = (clientId: string, atMs: number) => ({ clientId, minute: minute(atMs), service, worker: "pod-a", increments: 5 });
    await db.exclusivityCount.createMany({ data: [row("old-1", NOW - 40 * DAY), row("old-2", NOW - 31 * DAY), row("recent", NOW - 10 * DAY)] });
    const result = await runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 1 }, new AbortController().signal, {
      nowMs: NOW,
      pauseMs: 5,
    });
    expect(result.deletedCounts).toBe(2);
    const left = await db.exclusivityCount.findMany({ where: { service }, select: { clientId: true } });
    expect(left).toEqual([{ clientId: "recent" }]);
    await db.exclusivityCount.deleteMany({ where: { service } });
  });

  it("deletes raw events older than the retention from the default partitions in bounded batches, and keeps the rollup", async () => {
    await seed(250, 20);
    const rollupBefore = await db.violationMinute.aggregate({ where: { service }, _sum: { events: true, violations: true } });
    const result = await runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 100 }, new AbortController().signal, {
      nowMs: NOW,
      pauseMs: 5,
    });
    expect(result).toMatchObject({ cutoff: new Date(NOW - 30 * DAY).toISOString(), deleted: 250, batches: 4, isAborted: false, droppedPartitions: [] });
    expect(await db.exclusivityEvent.count({ where: { service } })).toBe(20);
    const rollupAfter = await db.violationMinute.aggregate({ where: { service }, _sum: { events: true, violations: true } });
    expect(rollupAfter).toEqual(rollupBefore);
    const again = await runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 100 }, new AbortController().signal, {
      nowMs: NOW,
      pauseMs: 5,
    });
    // One batch per default partition (violations and other events: half of the seed each).
    expect(again).toMatchObject({ deleted: 0, batches: 2 });
  });

  it("deletes alerts resolved, notifications delivered and Key_Shared splits ended before the cutoff, and keeps what is open", async () => {
    const at = (ms: number) => new Date(ms);
    const alert = (name: string, state: string, activeMs: number, resolvedMs: number | null) =>
      db.alert.create({
        data: {
          fingerprint: `${service}-${name}`,
          rule: "no-holder",
          labels: { service },
          severity: "critical",
          summary: name,
          description: name,
          link: "/",
          state,
          activeAt: at(activeMs),
          firedAt: at(activeMs),
          resolvedAt: resolvedMs === null ? null : at(resolvedMs),
        },
        select: { id: true },
      });
    const oldResolved = await alert("old-resolved", "resolved", NOW - 45 * DAY, NOW - 40 * DAY);
    const recentResolved = await alert("recent-resolved", "resolved", NOW - 12 * DAY, NOW - 10 * DAY);
    const longFiring = await alert("long-firing", "firing", NOW - 60 * DAY, null);
    const notify = (alertId: bigint, kind: string, deliveredMs: number | null) =>
      db.alertNotification.create({
        data: {
          alertId,
          receiver: "alertmanager",
          kind,
          createdAt: at(deliveredMs ?? NOW),
          nextAttemptAt: at(deliveredMs ?? NOW),
          deliveredAt: deliveredMs === null ? null : at(deliveredMs),
        },
        select: { id: true },
      });
    await notify(oldResolved.id, "resolved", NOW - 40 * DAY);
    const oldResend = await notify(longFiring.id, "firing", NOW - 50 * DAY);
    const recentResend = await notify(longFiring.id, "firing", NOW - 5 * DAY);
    const undelivered = await notify(longFiring.id, "firing", null);

    const cluster = await db.cluster.create({ data: { name: `${service}-ks`, adminUrl: "http://127.0.0.1:9", pollIntervalMs: 5_000 }, select: { id: true } });
    const resource = await db.heldResource.create({
      data: { clusterId: cluster.id, kind: "PULSAR_SUBSCRIPTION_PARTITION", resourceKey: `${service}|ks|0` },
      select: { id: true },
    });
    const split = (from: number, to: number | null) => ({
      clusterId: cluster.id,
      resourceId: resource.id,
      signature: `s${from}`,
      split: { space: 65_536, consumers: [] },
      validFrom: at(from),
      validTo: to === null ? null : at(to),
    });
    await db.keySharedRangeSplit.createMany({
      data: [split(NOW - 50 * DAY, NOW - 35 * DAY), split(NOW - 35 * DAY, NOW - 20 * DAY), split(NOW - 20 * DAY, null)],
    });

    try {
      const result = await runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 100 }, new AbortController().signal, {
        nowMs: NOW,
        pauseMs: 5,
      });
      // The old resolved alert takes its own notification with it; the old re-send of the firing one goes alone.
      expect(result.deletedHistory).toEqual({ alerts: 1, notifications: 1, rangeSplits: 1 });
      const alertsLeft = await db.alert.findMany({
        where: { fingerprint: { startsWith: `${service}-` } },
        select: { summary: true },
        orderBy: { summary: "asc" },
      });
      expect(alertsLeft.map((a) => a.summary)).toEqual(["long-firing", "recent-resolved"]);
      const notificationsLeft = await db.alertNotification.findMany({
        where: { alertId: { in: [oldResolved.id, recentResolved.id, longFiring.id] } },
        select: { id: true },
        orderBy: { id: "asc" },
      });
      expect(notificationsLeft.map((n) => n.id)).toEqual([recentResend.id, undelivered.id]);
      expect(notificationsLeft.map((n) => n.id)).not.toContain(oldResend.id);
      const splitsLeft = await db.keySharedRangeSplit.findMany({
        where: { resourceId: resource.id },
        select: { validFrom: true },
        orderBy: { validFrom: "asc" },
      });
      expect(splitsLeft.map((row) => row.validFrom.getTime())).toEqual([NOW - 35 * DAY, NOW - 20 * DAY]);
    } finally {
      await db.alert.deleteMany({ where: { fingerprint: { startsWith: `${service}-` } } });
      await db.cluster.delete({ where: { id: cluster.id } });
    }
  });

  it("stops between batches when its signal aborts", async () => {
    await seed(300, 0);
    const stop = new AbortController();
    const running = runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 100 }, stop.signal, { nowMs: NOW, pauseMs: 60_000 });
    // The first batch runs, then the long pause is cut short.
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop.abort();
    const result = await running;
    expect(result).toMatchObject({ deleted: 100, batches: 1, isAborted: true });
    await runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 1_000 }, new AbortController().signal, { nowMs: NOW });
  });

  it("lets ingestion go on while it deletes", async () => {
    await seed(6_000, 0);
    const deleting = runRetention(db, { retentionDays: 30, violationRetentionDays: 30, retentionBatchSize: 500 }, new AbortController().signal, {
      nowMs: NOW,
      pauseMs: 20,
    });
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await writeTestEvents(
        pool,
        Array.from({ length: 200 }, (_, j) => ({ service, key: `live-${j}`, counter: 0, observedAtMs: NOW - MINUTE + i * 1_000 + j })),
      );
      latencies.push(performance.now() - started);
    }
    const result = await deleting;
    expect(result.deleted).toBe(6_000);
    expect(await db.exclusivityEvent.count({ where: { service, key: { startsWith: "live-" } } })).toBe(2_000);
    // No batch of inserts waited on the deletes (generous for a loaded machine).
    expect(Math.max(...latencies)).toBeLessThan(5_000);
  });
});
