// Shared by the Java client's integration tests: a real Baton ingest (the route handlers behind
// real HTTP, writing to the test database), the test broker's binary URL, and Java workers
// and producers named uniquely per test.
import { randomUUID } from "node:crypto";

import { POST as postCounts } from "@/app/api/v1/exclusivity-counts/route";
import { POST as postEvents } from "@/app/api/v1/exclusivity-events/route";
import { startRouteServer, type RouteServer } from "@/tests/bench/route-server";
import { runJavaProgram, startJavaWorker, type JavaWorker } from "@/tests/support/java-exclusivity-worker";
import { getTestBrokerServiceUrl } from "@/tests/support/pulsar";

export function startBaton(port = 0): Promise<RouteServer> {
  return startRouteServer({ "POST /api/v1/exclusivity-events": postEvents, "POST /api/v1/exclusivity-counts": postCounts }, port);
}

/** A service name and Redis key prefix that no other test uses. */
export function uniqueService(): { service: string; keyPrefix: string } {
  const service = `jvm-${randomUUID()}`;
  return { service, keyPrefix: `baton-test:${service}:` };
}

export async function produceKeyed(topic: string, count: number, keys: number, prefix: string): Promise<void> {
  const result = await runJavaProgram("ProduceKeyed", { serviceUrl: await getTestBrokerServiceUrl(), topic, count, keys, prefix });
  if (result.code !== 0 || !result.stdout.includes(`produced ${count}`))
    throw new Error(`ProduceKeyed failed (${result.code}): ${result.stderr.slice(-2_000)}`);
}

export type WorkerArgs = {
  name: string;
  topic: string;
  subscription: string;
  type: "Failover" | "Key_Shared" | "Shared" | "Exclusive";
  batonUrl: string;
  token: string;
  keyPrefix: string;
  service: string;
} & Record<string, string | number>;

export type LockHolderArgs = {
  name: string;
  lockKey: string;
  /** The lock as Baton's configuration names it, "<cluster>/<lock key>". */
  lockRef: string;
  key: string;
  lockTtlMs: number;
  batonUrl: string;
  token: string;
  keyPrefix: string;
  service: string;
};

/** Workers started here are killed by stopAll() (a test that failed half-way leaves none behind). */
export function workerPool() {
  const started: JavaWorker[] = [];
  return {
    /** A worker whose JVM is up, not yet subscribed. */
    async launch(args: WorkerArgs): Promise<JavaWorker> {
      const worker = await startJavaWorker({ serviceUrl: await getTestBrokerServiceUrl(), ...args });
      started.push(worker);
      return worker;
    },
    /** A LockHolder whose JVM is up, holding nothing yet. */
    async launchLockHolder(args: LockHolderArgs): Promise<JavaWorker> {
      const worker = await startJavaWorker(args, "LockHolder");
      started.push(worker);
      return worker;
    },
    /** A subscribed worker. */
    async start(args: WorkerArgs): Promise<JavaWorker> {
      const worker = await this.launch(args);
      await worker.subscribe();
      return worker;
    },
    async stopAll(): Promise<void> {
      await Promise.all(started.splice(0).map((worker) => worker.kill()));
    },
  };
}

/** The 32-bit FNV-1a hash of a key's UTF-8 bytes, unsigned: the Java client's key sample (KeySample.java) picks by it. */
export function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, "utf8")) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

/** The values a worker acknowledged so far. */
export function ackedValues(worker: JavaWorker): string[] {
  return worker
    .lines()
    .filter((line) => line.kind === "acked")
    .map((line) => line.rest.split(" ")[1]!);
}
