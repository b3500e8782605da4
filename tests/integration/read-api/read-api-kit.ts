// Shared by the read API tests: the route handlers run in-process against the test database,
// with clusters of the test's own (getConfig() reads the environment on first use, so it is
// set here, before any handler runs).
import { randomUUID } from "node:crypto";

import { createDb, type Db } from "@/lib/db/client";
import type { ChangeKind } from "@/lib/timeline/timeline-types";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

export const RUN = randomUUID().slice(0, 8);
export const CLUSTER = `readapi-${RUN}`;
export const OTHER_CLUSTER = `readapi-other-${RUN}`;
/** Configured as a Pulsar entry until the Redis kind is registered; its cluster row says REDIS (the lock read models read the kind from the row). */
export const LOCK_CLUSTER = `readapi-locks-${RUN}`;

process.env.DATABASE_URL = getTestDatabaseUrl();
process.env.BATON_CLUSTERS = JSON.stringify([
  { name: CLUSTER, adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5000 },
  { name: OTHER_CLUSTER, adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5000 },
  {
    kind: "redis",
    name: LOCK_CLUSTER,
    url: "redis://127.0.0.1:9",
    pollIntervalMs: 5000,
    patterns: [{ match: "lock:*" }, { match: "leader:*", layout: "redisson", mustBeHeld: true }],
  },
]);
process.env.BATON_FLAP_CHANGES = "4";
process.env.BATON_FLAP_WINDOW_MINUTES = "10";
process.env.BATON_STUCK_SAMPLES = "3";

export function openDb(): Db {
  return createDb(getTestDatabaseUrl());
}

export type Answer = {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string; details?: { issues: { field: string | null; message: string }[] } } };
};

export async function answer(response: Promise<Response> | Response): Promise<Answer> {
  const res = await response;
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

export async function createCluster(db: Db, name: string, lastPollAt: Date | null = new Date()): Promise<number> {
  const cluster = await db.cluster.upsert({
    where: { name },
    create: { name, adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5000 },
    update: {},
    select: { id: true },
  });
  if (lastPollAt) {
    await db.pollRun.create({
      data: {
        clusterId: cluster.id,
        startedAt: new Date(lastPollAt.getTime() - 100),
        finishedAt: lastPollAt,
        durationMs: 100,
        cycleMs: 5000,
        topicCount: 1,
        resourceCount: 1,
        requestCount: 1,
        errorCount: 0,
        pollerEpoch: 1n,
        pollerId: "test",
      },
      select: { id: true },
    });
  }
  return cluster.id;
}

export type ResourceSeed = {
  tenant?: string;
  namespace?: string;
  topic: string;
  partition?: number;
  subscription: string;
  subscriptionType?: string | null;
  holder?: string | null;
  holderSince?: Date | null;
  consumers?: string[];
  hashRanges?: unknown;
  backlog?: number | null;
  recentSamples?: unknown[];
  lastObservedAt?: Date | null;
  staleSince?: Date | null;
  lastError?: string | null;
  goneAt?: Date | null;
  firstSeenAt?: Date;
};

export async function createResource(db: Db, clusterId: number, seed: ResourceSeed): Promise<bigint> {
  const partition = seed.partition ?? -1;
  const tenant = seed.tenant ?? seed.topic.split("/")[2]!;
  const consumers = (seed.consumers ?? (seed.holder ? [seed.holder] : [])).map((name) => ({
    name,
    connectedSince: "2026-11-22T09:00:00.000Z",
    msgRateOut: 1,
    availablePermits: 1000,
    unackedMessages: 0,
    lastConsumedAt: null,
    address: "/127.0.0.1:50000",
    clientVersion: "test",
  }));
  const row = await db.heldResource.create({
    data: {
      clusterId,
      kind: "PULSAR_SUBSCRIPTION_PARTITION",
      resourceKey: `${seed.topic}|${seed.subscription}|${partition}`,
      tenant,
      namespace: seed.namespace ?? `${tenant}/${seed.topic.split("/")[3]}`,
      topic: seed.topic,
      partition,
      subscription: seed.subscription,
      subscriptionType: seed.subscriptionType === undefined ? "Failover" : seed.subscriptionType,
      holder: seed.holder === undefined ? null : seed.holder,
      holderSince: seed.holderSince === undefined ? new Date(Date.now() - 3_600_000) : seed.holderSince,
      consumers,
      hashRanges: seed.hashRanges === undefined ? undefined : (seed.hashRanges as object),
      backlog: seed.backlog === null ? null : BigInt(seed.backlog ?? 0),
      recentSamples: (seed.recentSamples ?? []) as object[],
      lastObservedAt: seed.lastObservedAt === undefined ? new Date() : seed.lastObservedAt,
      staleSince: seed.staleSince ?? null,
      lastError: seed.lastError ?? null,
      goneAt: seed.goneAt ?? null,
      firstSeenAt: seed.firstSeenAt ?? new Date(Date.now() - 30 * 86_400_000),
    },
    select: { id: true },
  });
  return row.id;
}

export async function createChange(
  db: Db,
  clusterId: number,
  resourceId: bigint,
  change: { kind: ChangeKind; from: string | null; to: string | null; at: Date; cause?: "CLIENT" | "BROKER" | "UNKNOWN"; details?: object },
): Promise<void> {
  await db.holderChange.create({
    data: {
      clusterId,
      resourceId,
      kind: change.kind,
      cause: change.cause ?? "CLIENT",
      fromHolder: change.from,
      toHolder: change.to,
      oldSeenAt: new Date(change.at.getTime() - 5_000),
      newSeenAt: change.at,
      details: change.details ?? {},
      pollerEpoch: 1n,
    },
    select: { id: true },
  });
}

/** Deletes everything the test made (changes go with their resources). */
export async function removeClusters(db: Db, names: string[]): Promise<void> {
  await db.cluster.deleteMany({ where: { name: { in: names } } });
}
