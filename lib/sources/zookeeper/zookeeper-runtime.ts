import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";

import { DUMP_ALLOWED_NOTE, DUMP_WHITELIST_NOTE, readSessionDump } from "./session-dump";
import { createZookeeperConnection } from "./zookeeper-connection";
import { zookeeperDescription } from "./zookeeper-description";
import type { ZookeeperKindConfig } from "./zookeeper-source";
import { createZookeeperSource } from "./zookeeper-source";

// What the ZooKeeper kind does with a session: zookeeper-kind.ts loads this module (and with it
// node-zookeeper-client) when a ZooKeeper cluster is polled or checked.

export function openZookeeperCycles(config: ZookeeperKindConfig, saved: CycleStates, log: (line: string) => void): Promise<SourceCycles> {
  return openHoldCycles(createZookeeperSource(config, log), saved.shape === "hold" ? saved.states : [], {
    resourceKind: zookeeperDescription.resourceKind,
    predictNextHolder: zookeeperDescription.predictNextHolder,
    discoveryIntervalMs: config.discoveryIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    log,
  });
}

/**
 * What the server does with `dump`, in words for the Clusters page: whether it gives Baton the
 * sessions' deadlines (and so how holds end), or refuses it and what to change. Null when the
 * setting is off or no server answered it.
 */
async function describeDump(config: ZookeeperKindConfig, timeoutMs: number): Promise<string | null> {
  if (config.sessionDump === "off") return null;
  const dump = await readSessionDump(config.connectString, timeoutMs).catch(() => undefined);
  if (dump === undefined) return null;
  return dump === null ? `the server refuses \`dump\`: ${DUMP_WHITELIST_NOTE}` : DUMP_ALLOWED_NOTE;
}

/** A session and a read of the root node: proves the ensemble answers and accepts the auth; then what it does with `dump`. */
export async function checkZookeeperReachable(config: ZookeeperKindConfig, timeoutMs: number): Promise<{ status: "ok" | "down"; reason: string | null }> {
  const connection = createZookeeperConnection({
    connectString: config.connectString,
    sessionTimeoutMs: config.sessionTimeoutMs,
    requestTimeoutMs: timeoutMs,
    digest: config.digestSecret ?? config.digest,
    limiter: createRateLimiter({ requestsPerSecond: 10, maxConcurrency: 1 }),
  });
  try {
    await connection.getData("/");
    return { status: "ok", reason: await describeDump(config, timeoutMs) };
  } catch (error) {
    return { status: "down", reason: (error as Error).message };
  } finally {
    await connection.close();
  }
}
