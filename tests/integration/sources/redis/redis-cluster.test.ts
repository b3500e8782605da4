import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createCommandLimiter, createRedisLockSource, parseRedisClusterConfig } from "@/lib/sources/redis";
import { pollUntil } from "@/tests/support/poll-until";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";
import { withoutFakeClock } from "@/tools/without-fake-clock";

const run = promisify(execFile);

describe("a Redis Cluster of three test-owned masters", () => {
  let servers: TestRedisServer[];
  let writer: Cluster;

  beforeAll(async () => {
    servers = await Promise.all([0, 1, 2].map(() => startRedisServer({ extraArgs: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"] })));
    await run("redis-cli", ["--cluster", "create", ...servers.map((server) => `127.0.0.1:${server.port}`), "--cluster-replicas", "0", "--cluster-yes"], {
      env: withoutFakeClock(process.env),
    });
    await pollUntil(
      async () => {
        const probe = new Redis(servers[0]!.url, { maxRetriesPerRequest: 0 });
        try {
          return await probe.call("CLUSTER", "INFO");
        } finally {
          probe.disconnect();
        }
      },
      (info) => String(info).includes("cluster_state:ok"),
      { description: "the cluster to be ok" },
    );
    writer = new Cluster([{ host: "127.0.0.1", port: servers[0]!.port }]);
  });

  afterAll(async () => {
    writer?.disconnect();
    await stopRedisServers(servers ?? []);
  });

  it("discovers on every master and reads each lock on the master that owns its slot", async () => {
    const names = Array.from({ length: 30 }, (_, index) => `lock:job-${index}`);
    for (const name of names) await writer.set(name, `pod-${name.length}:${name}`, "PX", 60_000);
    await writer.set("{app}:leader", "pod-1:abc", "PX", 60_000);

    const limiter = createCommandLimiter({ commandsPerSecond: 100_000 });
    const source = createRedisLockSource(
      parseRedisClusterConfig({
        kind: "redis",
        name: "cluster",
        url: servers[0]!.url,
        cluster: true,
        patterns: [{ match: "lock:*" }, { match: "{app}:leader", mustBeHeld: true }],
      }),
      limiter,
    );
    try {
      const discovered = await source.discover();
      expect(discovered.errors).toEqual([]);
      expect(discovered.keys.map(({ key }) => key).sort()).toEqual([...names, "{app}:leader"].sort());
      limiter.takeRequestCount();

      const { observations, errors } = await source.observe(discovered.keys);
      expect(errors).toEqual([]);
      expect(observations).toHaveLength(31);
      expect(observations.every((observation) => observation.holder !== null)).toBe(true);
      // One pipeline per master, GET + PTTL per key: no key was read twice or on the wrong master.
      expect(limiter.takeRequestCount()).toBe(62);
      expect(new Set(observations.map((observation) => observation.details.master)).size).toBe(3);
    } finally {
      await source.close();
    }
  });
});
