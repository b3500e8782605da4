import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";
import { zookeeperKind } from "@/lib/sources/zookeeper/zookeeper-kind";
import { createZookeeperSource } from "@/lib/sources/zookeeper/zookeeper-source";
import { startZookeeperServer, type TestZookeeperServer } from "@/tests/support/zookeeper-server";

// A ZooKeeper 3.9.3 whose 4lw whitelist leaves out `dump` (its default allows only srvr): Baton
// cannot learn other sessions' deadlines, nor how a hold ended. The worker's log says so once, at
// the first read, naming the setting, and the Clusters page's check says it of this server.

let server: TestZookeeperServer;

beforeAll(async () => {
  server = await startZookeeperServer({ fourLetterWords: "srvr" });
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

describe("a ZooKeeper that refuses `dump`", () => {
  it("is said once in the log, naming 4lw.commands.whitelist", async () => {
    const logs: string[] = [];
    const config = parseZookeeperClusterConfig({
      kind: "zookeeper",
      name: "no-dump",
      connectString: server.connectString,
      requestTimeoutMs: 2_000,
      paths: [{ path: "/locks/daily", recipe: "kazoo-lock" }],
    });
    const source = createZookeeperSource(config, (line) => logs.push(line));
    try {
      const ref = { key: "/locks/daily", pattern: "/locks/daily" };
      const first = await source.observe([ref]);
      // sessionDump auto: a refusal is no read error.
      expect(first.errors).toEqual([]);
      await source.observe([ref]);
      const lines = logs.filter((line) => line.includes("`dump`"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("4lw.commands.whitelist");
      expect(lines[0]).toContain("ended in a way not known");
    } finally {
      await source.close();
    }
  });

  it("is said on the Clusters page, by the reachability check that asks the server", async () => {
    const config = zookeeperKind.parseConfig(
      { kind: "zookeeper", name: "no-dump", connectString: server.connectString, paths: [{ path: "/locks/daily", recipe: "kazoo-lock" }] },
      "BATON_CLUSTERS[0]",
      5_000,
    );
    const checked = await zookeeperKind.checkReachable(config, 2_000);
    expect(checked.status).toBe("ok");
    expect(checked.reason).toContain("the server refuses `dump`");
    expect(checked.reason).toContain("4lw.commands.whitelist");
  });
});
