// Shared by the violations integration tests: events go in through the ingest write path (so
// the per-minute rollup is maintained exactly as in production), deployments and leader changes
// through Prisma; route handlers run in-process against the test database (getConfig() reads
// DATABASE_URL on first use, so it is set before any handler runs).
import { randomUUID } from "node:crypto";

import type pg from "pg";

import { createDb, type Db } from "@/lib/db/client";
import { createIngestPool } from "@/lib/ingest/ingest-pool";
import type { ValidEvent } from "@/lib/ingest/types";
import { writeEvents } from "@/lib/ingest/write-events";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

process.env.DATABASE_URL = getTestDatabaseUrl();

export const MINUTE = 60_000;

/** A prefix no other test uses, for services, keys, subscriptions and cluster names. */
export function uniquePrefix(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

export function openDb(): Db {
  return createDb(getTestDatabaseUrl());
}

export function openIngestPool(): pg.Pool {
  return createIngestPool(getTestDatabaseUrl());
}

export type EventInput = Partial<ValidEvent> & Pick<ValidEvent, "service" | "key" | "counter" | "observedAtMs">;

/** Writes events with the ingest path's own statement (events and rollup in one transaction). */
export async function writeTestEvents(pool: pg.Pool, events: readonly EventInput[]): Promise<void> {
  const valid: ValidEvent[] = events.map((e) => ({
    eventId: randomUUID(),
    worker: "worker-1",
    topic: null,
    subscription: null,
    partition: null,
    traceId: null,
    attributesJson: null,
    othersInsideJson: null,
    lock: null,
    ...e,
  }));
  const written = await writeEvents(pool, valid, "HTTP");
  if (written !== valid.length) throw new Error(`wrote ${written} of ${valid.length} events`);
}

export async function createDeployment(
  db: Db,
  input: { service: string; startedAtMs: number; finishedAtMs: number | null; environment?: string; version?: string },
): Promise<string> {
  const row = await db.deployment.create({
    data: {
      service: input.service,
      version: input.version ?? "1.0.0",
      environment: input.environment ?? "production",
      startedAt: new Date(input.startedAtMs),
      finishedAt: input.finishedAtMs === null ? null : new Date(input.finishedAtMs),
    },
    select: { id: true },
  });
  return row.id.toString();
}

/** A subscription partition with one leader change, as the poller would have recorded it. */
export async function createLeaderChange(
  db: Db,
  input: { topic: string; subscription: string; partition: number; oldSeenAtMs: number; newSeenAtMs: number; from?: string; to?: string },
): Promise<void> {
  const cluster = await db.cluster.create({
    data: { name: uniquePrefix("cluster"), adminUrl: "http://127.0.0.1:49151", pollIntervalMs: 5_000, isConfigured: false },
    select: { id: true },
  });
  const resource = await db.heldResource.create({
    data: {
      clusterId: cluster.id,
      kind: "PULSAR_SUBSCRIPTION_PARTITION",
      resourceKey: `${input.topic}|${input.subscription}|${input.partition}`,
      topic: input.topic,
      partition: input.partition,
      subscription: input.subscription,
    },
    select: { id: true },
  });
  await db.holderChange.create({
    data: {
      clusterId: cluster.id,
      resourceId: resource.id,
      kind: "HOLDER_CHANGED",
      fromHolder: input.from ?? "worker-1",
      toHolder: input.to ?? "worker-2",
      oldSeenAt: new Date(input.oldSeenAtMs),
      newSeenAt: new Date(input.newSeenAtMs),
      pollerEpoch: 1n,
    },
  });
}

/** Calls a GET route handler in-process and reads its JSON answer. */
export async function getJson(
  handler: (request: Request, context: never) => Promise<Response>,
  url: string,
  context?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(new Request(url), context as never);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
