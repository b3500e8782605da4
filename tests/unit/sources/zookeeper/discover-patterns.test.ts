import { describe, expect, it, vi } from "vitest";

import { createDiscovery } from "@/lib/sources/zookeeper/discover-lock-paths";
import type { ZnodeStat, ZookeeperConnection } from "@/lib/sources/zookeeper/zookeeper-connection";
import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";

// Discovery of a system's patterns (`*` for one segment) against an in-memory tree: each `*` is
// listed with a child watch; a parent not there yet gets an `exists` watch, so its creation lists
// the pattern again and announces the new lock.

type Watch = (event: { path: string; type: string }) => void;

function fakeTree(initial: string[]) {
  const nodes = new Set(["/", ...initial]);
  const watches = new Map<string, Watch[]>();
  const arm = (path: string, watch?: Watch) => {
    if (watch) watches.set(path, [...(watches.get(path) ?? []), watch]);
  };
  const stat: ZnodeStat = { ephemeralOwner: null, ctimeMs: 0, czxid: "0x1", numChildren: 0 };
  const connection: ZookeeperConnection = {
    ready: async () => undefined,
    async getChildren(path, watch) {
      if (!nodes.has(path)) return null;
      arm(path, watch);
      const prefix = path === "/" ? "/" : `${path}/`;
      return [...nodes].filter((n) => n.startsWith(prefix) && n !== path && !n.slice(prefix.length).includes("/")).map((n) => n.slice(prefix.length));
    },
    async getData(path) {
      return nodes.has(path) ? { data: null, stat } : null;
    },
    async exists(path, watch) {
      arm(path, watch);
      return nodes.has(path) ? stat : null;
    },
    session: () => ({ id: null, timeoutMs: null }),
    connectionNumber: () => 1,
    onSession: () => () => undefined,
    close: async () => undefined,
  };
  return {
    connection,
    hasWatch: (path: string) => (watches.get(path)?.length ?? 0) > 0,
    /** Creates a node and fires the watches on it (created) and on its parent (children), once each. */
    create(path: string) {
      nodes.add(path);
      const parent = path.slice(0, path.lastIndexOf("/")) || "/";
      for (const [target, type] of [
        [path, "created"],
        [parent, "children"],
      ] as const) {
        const fired = watches.get(target) ?? [];
        watches.delete(target);
        for (const watch of fired) watch({ path: target, type });
      }
    },
  };
}

const config = (systems: unknown[]) => parseZookeeperClusterConfig({ kind: "zookeeper", name: "fleet", connectString: "zk:2181", systems });

describe("discovery of a system's patterns", () => {
  it("lists every `*`: each HDFS nameservice's lock, free or held, under its pattern", async () => {
    const tree = fakeTree(["/hadoop-ha", "/hadoop-ha/ns1", "/hadoop-ha/ns2", "/hadoop-ha/ns2/ActiveStandbyElectorLock"]);
    const discovery = createDiscovery(config([{ system: "hdfs" }, { system: "kafka" }]), tree.connection);
    const found = await discovery.discover();
    expect(found.keys).toEqual([
      { key: "/controller", pattern: "/controller" },
      { key: "/hadoop-ha/ns1/ActiveStandbyElectorLock", pattern: "/hadoop-ha/*/ActiveStandbyElectorLock" },
      { key: "/hadoop-ha/ns2/ActiveStandbyElectorLock", pattern: "/hadoop-ha/*/ActiveStandbyElectorLock" },
    ]);
    expect(found.isComplete).toBe(true);
    expect(discovery.patternOf("/hadoop-ha/ns1/ActiveStandbyElectorLock")).toBe("/hadoop-ha/*/ActiveStandbyElectorLock");
    const target = discovery.targetOf({ key: "/hadoop-ha/ns1/ActiveStandbyElectorLock", pattern: "/hadoop-ha/*/ActiveStandbyElectorLock" });
    expect(target.recipe).toBe("ephemeral-node");
    expect(target.role?.describe("/hadoop-ha/ns1/ActiveStandbyElectorLock")).toBe("HDFS NameNode ns1");
  });

  it("a parent not there yet: its creation, then its first child's, announce the new lock", async () => {
    const tree = fakeTree([]);
    const announced: string[][] = [];
    const discovery = createDiscovery(config([{ system: "patroni", namespace: "/service" }]), tree.connection, (paths) => announced.push(paths));
    expect((await discovery.discover()).keys).toEqual([]);
    tree.create("/service");
    await vi.waitFor(() => expect(tree.hasWatch("/service")).toBe(true));
    tree.create("/service/orders");
    await vi.waitFor(() => expect(announced).toEqual([["/service/orders/leader"]]));
    expect(discovery.patternOf("/service/orders/leader")).toBe("/service/*/leader");
  });

  it("Solr's shard elections: two `*` segments, each collection's each shard", async () => {
    const tree = fakeTree([
      "/solr",
      "/solr/collections",
      "/solr/collections/books",
      "/solr/collections/books/leader_elect",
      "/solr/collections/books/leader_elect/shard1",
      "/solr/collections/books/leader_elect/shard2",
    ]);
    const discovery = createDiscovery(config([{ system: "solr", root: "/solr" }]), tree.connection);
    expect((await discovery.discover()).keys.map((k) => k.key)).toEqual([
      "/solr/overseer_elect/election",
      "/solr/collections/books/leader_elect/shard1/election",
      "/solr/collections/books/leader_elect/shard2/election",
    ]);
  });
});
