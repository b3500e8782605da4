// The demo's Redlock group: independent redis-server masters of its own on free ports, working
// under the demo's data directory, with the keyspace notifications (K$gx) that let Baton tell an
// expiry from a delete at once.
import path from "node:path";

import { type RedisServer, startRedisServer } from "@/tools/redis/redis-server";

/** Key-space events: generic (del, expire), string (set) and expired. */
const NOTIFY_KEYSPACE_EVENTS = "K$gx";

export type DemoRedisMasters = { urls: string[]; stop(): Promise<void> };

export async function startDemoRedisMasters(dataDir: string, count: number): Promise<DemoRedisMasters> {
  const servers: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let index = 1; index <= count; index++) {
      servers.push(await startRedisServer({ dir: path.join(dataDir, `master-${index}`), notifyKeyspaceEvents: NOTIFY_KEYSPACE_EVENTS }));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls: servers.map((server) => server.url), stop };
}
