import { randomUUID } from "node:crypto";

import type { Redis } from "ioredis";

import { type RedisServer, startRedisServer } from "@/tools/redis/redis-server";

// Test-owned redis-server instances (tools/redis/redis-server.ts starts them: a Redlock group
// needs 3 independent masters; notifications and restarts must never touch the machine's Redis),
// and helpers for the tests' keys on a shared Redis.

export { startRedisServer };
export type TestRedisServer = RedisServer;

/** The machine's Redis (ENVIRONMENT.md): shared, so tests use unique key prefixes on it. */
export const MACHINE_REDIS_URL = "redis://127.0.0.1:6379";

/** Stops servers and removes their directories. */
export async function stopRedisServers(servers: TestRedisServer[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      try {
        await server.dispose();
      } catch (error) {
        process.stderr.write(`[test] could not stop redis-server on port ${server.port}: ${String(error)}\n`);
      }
    }),
  );
}

/** A key prefix no other test (or run) uses on a shared Redis. */
export function uniquePrefix(label: string): string {
  return `baton-test:${label}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under `prefix` (SCAN, not KEYS: the machine's Redis is shared). */
export async function deleteKeysWithPrefix(client: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1_000);
    cursor = next;
    if (keys.length > 0) deleted += await client.del(...keys);
  } while (cursor !== "0");
  return deleted;
}
