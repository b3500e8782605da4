import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import pg from "pg";

import { startEmbeddedPostgres } from "@/lib/db/embedded-postgres";
import { applyMigrations } from "@/lib/db/migrate";
import { findFreePort } from "@/tools/free-port";

export const TEST_DATABASE_ENV = "BATON_TEST_DATABASE_URL";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Tests create and drop data freely: they refuse any database that is not on this machine. */
export function assertLocalDatabaseUrl(url: string): void {
  const host = new URL(url).hostname;
  if (!LOCAL_HOSTS.has(host)) throw new Error(`tests refuse to run against a non-local database (${host}); point ${TEST_DATABASE_ENV} at 127.0.0.1`);
}

/** The test database URL that the global setup (or the test runner) provided. */
export function getTestDatabaseUrl(): string {
  const url = process.env[TEST_DATABASE_ENV];
  if (!url) throw new Error(`${TEST_DATABASE_ENV} is not set: run the tests with npm test or through vitest's global setup`);
  assertLocalDatabaseUrl(url);
  return url;
}

/** The same server, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates an empty database with a unique name; returns its URL and a function that drops it. */
export async function createScratchDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`.toLowerCase();
  const admin = new pg.Client({ connectionString: withDatabase(baseUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(baseUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: withDatabase(baseUrl, "postgres") });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export type TestDatabase = { url: string; stop(): Promise<void> };

/** A throwaway embedded PostgreSQL on a free port, migrated, in a temporary directory. */
export async function startTestDatabase(options: { extraSettings?: readonly string[] } = {}): Promise<TestDatabase> {
  const baseDir = mkdtempSync(path.join(os.tmpdir(), "baton-test-pg-"));
  const server = await startEmbeddedPostgres({ baseDir, port: await findFreePort(), database: "baton_test", extraSettings: options.extraSettings });
  await applyMigrations(server.url);
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}
