import { describe, expect, it } from "vitest";

import {
  DEFAULT_REQUESTS_PER_SECOND,
  DEFAULT_SESSION_TIMEOUT_MS,
  parseZookeeperClusterConfig,
  ZookeeperConfigError,
} from "@/lib/sources/zookeeper/zookeeper-config";

const valid = { kind: "zookeeper", name: "coordination", connectString: "zk1:2181,zk2:2181", paths: [{ path: "/locks/daily-job" }] };

function errorOf(input: unknown): string {
  try {
    parseZookeeperClusterConfig(input, "BATON_CLUSTERS[2]");
  } catch (error) {
    expect(error).toBeInstanceOf(ZookeeperConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("parseZookeeperClusterConfig", () => {
  it("fills the defaults", () => {
    expect(parseZookeeperClusterConfig(valid)).toMatchObject({
      sessionTimeoutMs: DEFAULT_SESSION_TIMEOUT_MS,
      requestsPerSecond: DEFAULT_REQUESTS_PER_SECOND,
      discoveryIntervalMs: 300_000,
      requestTimeoutMs: 5_000,
      sessionDump: "auto",
      maxWaitersRead: 50,
      paths: [{ path: "/locks/daily-job", recipe: "auto", mustBeHeld: false }],
    });
  });

  it("accepts a chroot, a root with its depth, each recipe and digest auth", () => {
    const config = parseZookeeperClusterConfig({
      ...valid,
      connectString: "zk1.internal:2181/apps",
      digest: "baton:secret",
      root: { path: "/", maxDepth: 6 },
      paths: ["curator-mutex", "curator-leader-latch", "curator-leader-selector", "kazoo-lock"].map((recipe, i) => ({
        path: `/l/${i}`,
        recipe,
        mustBeHeld: i === 1,
      })),
    });
    expect(config.root).toEqual({ path: "/", recipe: "auto", mustBeHeld: false, maxDepth: 6 });
    expect(config.paths?.map((p) => p.recipe)).toEqual(["curator-mutex", "curator-leader-latch", "curator-leader-selector", "kazoo-lock"]);
    expect(parseZookeeperClusterConfig({ ...valid, paths: undefined, root: { path: "/locks" } }).paths).toBeUndefined();
  });

  it("accepts a node that is the lock, and systems by name with their defaults", () => {
    const config = parseZookeeperClusterConfig({
      ...valid,
      paths: [{ path: "/service/pg/leader", recipe: "ephemeral-node", mustBeHeld: true }],
      systems: [
        { system: "kafka", root: "/" },
        { system: "helix", cluster: "pinot" },
        { system: "pulsar" },
        { system: "hdfs" },
        { system: "hbase" },
        { system: "solr" },
        { system: "bookkeeper" },
        { system: "patroni", namespace: "/db" },
        { system: "yarn", clusterId: "rm-cluster" },
      ],
    });
    expect(config.paths?.[0]?.recipe).toBe("ephemeral-node");
    expect(config.systems).toEqual([
      { system: "kafka", root: "/" },
      { system: "helix", cluster: "pinot", root: "/" },
      { system: "pulsar", root: "/" },
      { system: "hdfs", root: "/hadoop-ha" },
      { system: "hbase", root: "/hbase" },
      { system: "solr", root: "/", shardLeaders: true },
      { system: "bookkeeper", ledgersRoot: "/ledgers" },
      { system: "patroni", namespace: "/db" },
      { system: "yarn", clusterId: "rm-cluster", root: "/yarn-leader-election" },
    ]);
    expect(parseZookeeperClusterConfig({ ...valid, paths: undefined, systems: [{ system: "kafka" }] }).paths).toBeUndefined();
  });

  const cases: { name: string; input: unknown; message: string }[] = [
    {
      name: "no paths and no root",
      input: { ...valid, paths: undefined },
      message:
        "BATON_CLUSTERS[2].paths is required: list the lock paths to watch, set root to find every lock under it, or name the systems whose leaders to watch (got nothing)",
    },
    { name: "an empty path list", input: { ...valid, paths: [] }, message: "BATON_CLUSTERS[2].paths must name at least one lock path (got [])" },
    {
      name: "a relative path",
      input: { ...valid, paths: [{ path: "locks/job" }] },
      message: "BATON_CLUSTERS[2].paths[0].path must be an absolute ZooKeeper path such as /locks/daily-job (no trailing '/') (got \"locks/job\")",
    },
    {
      name: "a trailing slash",
      input: { ...valid, paths: [{ path: "/locks/" }] },
      message: "BATON_CLUSTERS[2].paths[0].path must be an absolute ZooKeeper path",
    },
    {
      name: "a dot-dot segment",
      input: { ...valid, paths: [{ path: "/locks/../x" }] },
      message: "BATON_CLUSTERS[2].paths[0].path must not contain '.' or '..' segments",
    },
    { name: "the root as a lock", input: { ...valid, paths: [{ path: "/" }] }, message: "BATON_CLUSTERS[2].paths[0].path must name a lock node, not the root" },
    { name: "an unknown recipe", input: { ...valid, paths: [{ path: "/l", recipe: "redisson" }] }, message: "BATON_CLUSTERS[2].paths[0].recipe" },
    { name: "a duplicate path", input: { ...valid, paths: [{ path: "/l" }, { path: "/l" }] }, message: 'BATON_CLUSTERS[2].paths[1].path duplicate path "/l"' },
    {
      name: "a URL as connect string",
      input: { ...valid, connectString: "zk://zk1:2181" },
      message: "BATON_CLUSTERS[2].connectString must be host:port[,host:port...][/chroot], e.g. zk1:2181,zk2:2181",
    },
    { name: "a host without port", input: { ...valid, connectString: "zk1" }, message: "BATON_CLUSTERS[2].connectString must be host:port" },
    {
      name: "a digest without password",
      input: { ...valid, digest: "baton" },
      message: "BATON_CLUSTERS[2].digest must be user:password (got a value that is not shown)",
    },
    {
      name: "digest and digestFile",
      input: { ...valid, digest: "a:secret", digestFile: "/run/keys/zk" },
      message: "BATON_CLUSTERS[2].digestFile set digest or digestFile, not both",
    },
    { name: "a session timeout under a second", input: { ...valid, sessionTimeoutMs: 500 }, message: "BATON_CLUSTERS[2].sessionTimeoutMs" },
    { name: "an unknown session dump mode", input: { ...valid, sessionDump: "yes" }, message: "BATON_CLUSTERS[2].sessionDump" },
    { name: "a root too deep", input: { ...valid, root: { path: "/", maxDepth: 40 } }, message: "BATON_CLUSTERS[2].root.maxDepth" },
    { name: "an unknown key", input: { ...valid, chroot: "/x" }, message: 'unknown key "chroot"' },
    {
      name: "an ephemeral node under a root",
      input: { ...valid, root: { path: "/", recipe: "ephemeral-node" } },
      message: "BATON_CLUSTERS[2].root.recipe cannot be ephemeral-node under a root",
    },
    { name: "an unknown system", input: { ...valid, systems: [{ system: "zookeeper" }] }, message: "BATON_CLUSTERS[2].systems[0].system" },
    { name: "a Helix system without its cluster", input: { ...valid, systems: [{ system: "helix" }] }, message: "BATON_CLUSTERS[2].systems[0].cluster" },
    { name: "an empty system list", input: { ...valid, paths: undefined, systems: [] }, message: "BATON_CLUSTERS[2].systems must name at least one system" },
    {
      name: "a system's node also listed as a path",
      input: { ...valid, paths: [{ path: "/controller" }], systems: [{ system: "kafka" }] },
      message: "BATON_CLUSTERS[2].systems[0] watches /controller, which another entry already watches",
    },
  ];

  it.each(cases)("rejects $name with one line naming the setting", ({ input, message }) => {
    const error = errorOf(input);
    expect(error).toContain(`Invalid configuration: ${message}`.replace("Invalid configuration: unknown", "unknown"));
    expect(error).not.toContain("\n");
    expect(error).not.toContain("secret");
  });
});
