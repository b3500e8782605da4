// Shared by the ingest integration tests: the route handlers run in-process against the test
// database (getConfig() reads DATABASE_URL on first use, so it is set before any handler runs).
import { randomUUID } from "node:crypto";

import { createApiToken } from "@/lib/auth/create-api-token";
import { createDb, type Db } from "@/lib/db/client";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

process.env.DATABASE_URL = getTestDatabaseUrl();

export const EVENTS_URL = "http://127.0.0.1/api/v1/exclusivity-events";

/** A prefix for ids, services and token names that no other test uses. */
export function uniquePrefix(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

export function openDb(): Db {
  return createDb(getTestDatabaseUrl());
}

export async function createTestToken(db: Db, label: string): Promise<string> {
  return (await createApiToken(db, uniquePrefix(label))).token;
}

export type EventOverrides = Record<string, unknown>;

/** A valid event of `service`, observed a moment ago. */
export function makeEvent(service: string, id: string, overrides: EventOverrides = {}): Record<string, unknown> {
  return {
    id,
    key: `user-${id.length % 7}`,
    counter: 0,
    service,
    worker: "worker-1",
    topic: "persistent://acme/orders/events",
    subscription: "orders-sub",
    partition: 1,
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    observedAt: new Date(Date.now() - 1_000).toISOString(),
    ...overrides,
  };
}

export function eventsRequest(body: BodyInit, options: { token?: string | null; contentType?: string | null; headers?: Record<string, string> } = {}): Request {
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return new Request(EVENTS_URL, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

export type IngestAnswer = { accepted: number; duplicates: number; rejected: number; errors: { index: number; field: string | null; message: string }[] };

export async function countEvents(db: Db, service: string): Promise<number> {
  return db.exclusivityEvent.count({ where: { service } });
}

export async function rollupTotals(db: Db, service: string): Promise<{ events: number; violations: number }> {
  const rows = await db.violationMinute.findMany({ where: { service }, select: { events: true, violations: true } });
  return { events: rows.reduce((sum, r) => sum + r.events, 0), violations: rows.reduce((sum, r) => sum + r.violations, 0) };
}
