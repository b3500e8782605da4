import "server-only";

import { openHoldCycles } from "@/lib/poller/hold-cycles";
import { createRateLimiter } from "@/lib/poller/rate-limiter";
import type { CycleStates, SourceCycles } from "@/lib/poller/source-cycles";

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

/** A session and a read of the root node: proves the ensemble answers and accepts the auth. */
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
    return { status: "ok", reason: null };
  } catch (error) {
    return { status: "down", reason: (error as Error).message };
  } finally {
    await connection.close();
  }
}
