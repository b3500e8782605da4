import { describe, expect, it } from "vitest";

import { readLeaderNodes } from "@/lib/sources/zookeeper/read-leader-nodes";
import { createWatchedReads } from "@/lib/sources/zookeeper/watched-reads";
import type { ZnodeStat, ZookeeperConnection } from "@/lib/sources/zookeeper/zookeeper-connection";

// Reads kept until their watch fires, against an in-memory tree that behaves as the client does:
// a watch is armed with the answer, and a change that follows the answer runs its watches before
// the answer's awaiters continue.

type Watch = (event: { path: string; type: string }) => void;

function fakeServer(initial: Record<string, string>) {
  const nodes = new Map(Object.entries(initial));
  const watches = new Map<string, Set<Watch>>();
  const sent: string[] = [];
  let connections = 1;
  let connection: number | null = 1;
  let isAnswering = true;
  /** A change applied right after the next answer for its path, before the answer is used. */
  const afterAnswer = new Map<string, () => void>();
  const stat = (path: string): ZnodeStat => ({ ephemeralOwner: "0x1", ctimeMs: 0, czxid: `0x${path.length}`, numChildren: 0 });
  const arm = (path: string, watch?: Watch) => {
    if (watch) watches.set(path, (watches.get(path) ?? new Set()).add(watch));
  };
  /** Runs the watches armed under `key` (a path, or "children <path>" for child watches) once. */
  function fire(key: string, type: string): void {
    const fired = watches.get(key) ?? new Set();
    watches.delete(key);
    for (const watch of fired) watch({ path: key.replace(/^children /, ""), type });
  }
  async function answer<T>(what: string, path: string, value: () => T): Promise<T> {
    if (!isAnswering) throw new Error(`${what} ${path} got no answer`);
    sent.push(`${what} ${path}`);
    const result = value();
    const change = afterAnswer.get(path);
    afterAnswer.delete(path);
    change?.();
    return result;
  }
  const childrenOf = (path: string) =>
    [...nodes.keys()].filter((n) => n.startsWith(`${path}/`) && !n.slice(path.length + 1).includes("/")).map((n) => n.slice(path.length + 1));
  const client: ZookeeperConnection = {
    ready: async () => undefined,
    getChildren: (path, watch) =>
      answer("getChildren", path, () => {
        if (!nodes.has(path)) return null;
        arm(`children ${path}`, watch);
        return childrenOf(path);
      }),
    getData: (path, watch) =>
      answer("getData", path, () => {
        const data = nodes.get(path);
        if (data === undefined) return null;
        arm(path, watch);
        return { data: Buffer.from(data), stat: stat(path) };
      }),
    exists: (path, watch) =>
      answer("exists", path, () => {
        arm(path, watch);
        return nodes.has(path) ? stat(path) : null;
      }),
    session: () => ({ id: "0x2", timeoutMs: 6_000 }),
    connectionNumber: () => connection,
    onSession: () => () => undefined,
    close: async () => undefined,
  };
  return {
    client,
    sent,
    set(path: string, data: string) {
      const isNew = !nodes.has(path);
      nodes.set(path, data);
      fire(path, isNew ? "created" : "changed");
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (isNew) fire(`children ${parent}`, "children");
    },
    remove(path: string) {
      nodes.delete(path);
      fire(path, "deleted");
      fire(`children ${path.slice(0, path.lastIndexOf("/"))}`, "children");
    },
    changeAfterNextAnswer(path: string, change: () => void) {
      afterAnswer.set(path, change);
    },
    reconnect() {
      connections += 1;
      connection = connections;
    },
    disconnect() {
      connection = null;
    },
    stopAnswering() {
      isAnswering = false;
    },
  };
}

describe("reads kept until their watch fires", () => {
  it("answers an unchanged node from memory, and from the server once it changed (the caller's watch fired too)", async () => {
    const server = fakeServer({ "/kafka/controller": "broker 1" });
    const reads = createWatchedReads(server.client);
    const fired: string[] = [];
    const watch: Watch = (event) => fired.push(`${event.type} ${event.path}`);
    expect((await reads.readNode("/kafka/controller", watch))?.data?.toString()).toBe("broker 1");
    expect((await reads.readNode("/kafka/controller", watch))?.data?.toString()).toBe("broker 1");
    expect(server.sent).toEqual(["getData /kafka/controller"]);
    expect(reads.hitCount()).toBe(1);
    server.set("/kafka/controller", "broker 2");
    expect(fired).toEqual(["changed /kafka/controller"]);
    expect((await reads.readNode("/kafka/controller", watch))?.data?.toString()).toBe("broker 2");
    expect(server.sent).toEqual(["getData /kafka/controller", "getData /kafka/controller"]);
  });

  it("keeps a node that is not there (its `exists` watch armed) until it is created", async () => {
    const server = fakeServer({});
    const reads = createWatchedReads(server.client);
    expect(await reads.readNode("/service/pg/failover")).toBeNull();
    expect(await reads.readNode("/service/pg/failover")).toBeNull();
    expect(server.sent).toEqual(["getData /service/pg/failover", "exists /service/pg/failover"]);
    server.set("/service/pg/failover", "{}");
    expect((await reads.readNode("/service/pg/failover"))?.data?.toString()).toBe("{}");
  });

  it("reads a node created between its getData and its exists", async () => {
    const server = fakeServer({});
    const reads = createWatchedReads(server.client);
    server.changeAfterNextAnswer("/hbase/master", () => server.set("/hbase/master", "master-a"));
    expect((await reads.readNode("/hbase/master"))?.data?.toString()).toBe("master-a");
    expect(server.sent).toEqual(["getData /hbase/master", "exists /hbase/master", "getData /hbase/master"]);
  });

  it("keeps no answer that a change followed before it was used", async () => {
    const server = fakeServer({ "/controller": "broker 1" });
    const reads = createWatchedReads(server.client);
    server.changeAfterNextAnswer("/controller", () => server.set("/controller", "broker 2"));
    expect((await reads.readNode("/controller"))?.data?.toString()).toBe("broker 1");
    expect((await reads.readNode("/controller"))?.data?.toString()).toBe("broker 2");
    expect(server.sent).toHaveLength(2);
  });

  it("keeps children until they change; a node deleted under its watch is read again", async () => {
    const server = fakeServer({ "/brokers/ids": "", "/brokers/ids/1": "{}", "/brokers/ids/2": "{}" });
    const reads = createWatchedReads(server.client);
    expect(await reads.getChildren("/brokers/ids")).toEqual(["1", "2"]);
    expect(await reads.getChildren("/brokers/ids")).toEqual(["1", "2"]);
    server.remove("/brokers/ids/2");
    expect(await reads.getChildren("/brokers/ids")).toEqual(["1"]);
    expect(await reads.readNode("/brokers/ids/1")).not.toBeNull();
    server.remove("/brokers/ids/1");
    expect(await reads.readNode("/brokers/ids/1")).toBeNull();
    expect(server.sent.filter((s) => s.startsWith("getChildren"))).toHaveLength(2);
  });

  it("asks the server again on a new connection, while not connected, and for a watch not armed yet", async () => {
    const server = fakeServer({ "/a": "x" });
    const reads = createWatchedReads(server.client);
    const watch: Watch = () => undefined;
    await reads.readNode("/a");
    server.reconnect();
    await reads.readNode("/a");
    server.disconnect();
    await reads.readNode("/a");
    server.reconnect();
    await reads.readNode("/a");
    await reads.readNode("/a");
    await reads.readNode("/a", watch);
    await reads.readNode("/a", watch);
    await reads.readNode("/a");
    expect(server.sent).toEqual(["getData /a", "getData /a", "getData /a", "getData /a", "getData /a"]);
  });
});

describe("a read of leader nodes with kept answers", () => {
  const refs = [
    { key: "/a/leader", pattern: "/a/leader" },
    { key: "/b/leader", pattern: "/b/leader" },
  ];

  it("reads unchanged locks from memory and asks the server once; a server that stopped answering fails every lock", async () => {
    const server = fakeServer({ "/a/leader": "pg0", "/b/leader": "pg1" });
    const reads = createWatchedReads(server.client);
    const first = await readLeaderNodes(server.client, reads, refs, { roleOf: () => null });
    expect(first.readings.map((r) => r.node?.data?.toString())).toEqual(["pg0", "pg1"]);
    expect(server.sent).toEqual(["getData /a/leader", "getData /b/leader"]);
    const second = await readLeaderNodes(server.client, reads, refs, { roleOf: () => null });
    expect(second.readings.map((r) => r.node?.data?.toString())).toEqual(["pg0", "pg1"]);
    expect(server.sent.slice(2)).toEqual(["exists /"]);
    server.stopAnswering();
    const third = await readLeaderNodes(server.client, reads, refs, { roleOf: () => null });
    expect(third.readings).toEqual([]);
    expect(third.errors.map((e) => e.key)).toEqual([undefined, "/a/leader", "/b/leader"]);
    expect(third.errors[0]!.message).toBe("exists / got no answer");
  });
});
