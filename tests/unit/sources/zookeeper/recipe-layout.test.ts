import { describe, expect, it } from "vitest";

import { hasContenders, nameContender, orderContenders, parseContender, readableData } from "@/lib/sources/zookeeper/recipe-layout";

const uuid = "0a1b2c3d-4e5f-4a1b-8c9d-0e1f2a3b4c5d";

describe("parseContender", () => {
  it.each([
    [`_c_${uuid}-lock-0000000007`, "curator-mutex", 7, uuid],
    ["lock-0000000002", "curator-mutex", 2, null],
    [`_c_${uuid}-latch-0000000010`, "curator-leader-latch", 10, uuid],
    [`_c_${uuid}-lease-0000000001`, "curator-semaphore-mutex", 1, uuid],
    ["9f0e1d2c3b4a59687766554433221100__lock__0000000003", "kazoo-lock", 3, "9f0e1d2c3b4a59687766554433221100"],
  ])("reads %s as %s, sequence %i", (name, recipe, sequence, protectionId) => {
    expect(parseContender(name)).toEqual({ name, recipe, sequence, protectionId });
  });

  it.each(["leases", "locks", "lock-12", `_c_${uuid}-lock-`, "x__rlock__0000000001", "V_12", "election", "leader", "abc-node-n_0000000001"])(
    "reads %s as no contender",
    (name) => {
      expect(parseContender(name)).toBeNull();
    },
  );
});

// Names as the systems write them: go-zookeeper's CreateProtectedEphemeralSequential (`_c_` + %x of
// 16 random bytes + "-lock-"; Vault HA on ZooKeeper queues so under <path>/core/_lock), Solr's
// LeaderElector (`<session id>-<node name>-n_`, the overseer's under /overseer_elect/election,
// a shard's under /collections/<c>/leader_elect/<shard>/election: names from a SolrCloud's
// `ls`), BookKeeper's AuditorElector (`V_`, under <ledgers>/underreplication/auditorelection).
describe("the other systems' queues", () => {
  const goGuid = "9d5e6c1a0b7f4e2d8c3b1a0f9e8d7c6b";

  it.each([
    [`_c_${goGuid}-lock-0000000003`, "go-zookeeper-lock", 3, goGuid, undefined],
    ["166405419031556844-172.17.52.154:8080_solr-n_0000000117", "solr-election", 117, "166405419031556844", "172.17.52.154:8080_solr"],
    ["166405419031556844-core_node1-n_0000000028", "solr-election", 28, "166405419031556844", "core_node1"],
    ["-8935141660703064064-10.0.0.7:8983_solr-n_0000000002", "solr-election", 2, "-8935141660703064064", "10.0.0.7:8983_solr"],
    ["V_0000000012", "bookkeeper-auditor", 12, null, undefined],
  ])("reads %s as %s, sequence %i", (name, recipe, sequence, protectionId, label) => {
    expect(parseContender(name)).toEqual({ name, recipe, sequence, protectionId, ...(label === undefined ? {} : { label }) });
  });

  it("Solr's overseer election: the lowest sequence leads, named by its node name", () => {
    const children = ["166405419031556844-172.17.52.154:8080_solr-n_0000000117", "166405419031556837-172.17.52.155:8080_solr-n_0000000115"];
    const queue = orderContenders(children, "auto");
    expect(queue.recipe).toBe("solr-election");
    expect(queue.contenders.map((c) => nameContender(c, Buffer.from("")))).toEqual(["172.17.52.155:8080_solr", "172.17.52.154:8080_solr"]);
    expect(hasContenders(children, "auto")).toBe(true);
  });

  it("BookKeeper's auditor election: the lowest vote is the auditor, named by the bookie id in its vote", () => {
    const queue = orderContenders(["V_0000000004", "V_0000000002"], "bookkeeper-auditor");
    expect(queue.contenders.map((c) => c.name)).toEqual(["V_0000000002", "V_0000000004"]);
    expect(nameContender(queue.contenders[0]!, Buffer.from('bookieId: "127.0.0.1:3181"\n'))).toBe("127.0.0.1:3181");
    expect(hasContenders(["V_0000000004"], "auto")).toBe(true);
  });

  it("a go-zookeeper lock (Vault's HA lock) is found under auto and counts as a Curator-style mutex", () => {
    const children = [`_c_${goGuid}-lock-0000000001`, `_c_${"0".repeat(32)}-lock-0000000000`];
    expect(hasContenders(children, "auto")).toBe(true);
    expect(orderContenders(children, "curator-mutex").contenders.map((c) => c.sequence)).toEqual([0, 1]);
    const queue = orderContenders(children, "go-zookeeper-lock");
    expect(queue.recipe).toBe("go-zookeeper-lock");
    // Vault writes nothing into its lock node: the node names the holder.
    expect(nameContender(queue.contenders[0]!, Buffer.from(""))).toBe(`_c_${"0".repeat(32)}-lock-0000000000`);
  });
});

describe("orderContenders", () => {
  it("orders by sequence as a number, whatever the uuid prefix sorts as", () => {
    const children = [
      `_c_ffffffff-0000-4000-8000-000000000000-latch-0000000012`,
      `_c_00000000-0000-4000-8000-000000000000-latch-0000000013`,
      `_c_99999999-0000-4000-8000-000000000000-latch-0000000002`,
    ];
    const queue = orderContenders(children, "curator-leader-latch");
    expect(queue.contenders.map((c) => c.sequence)).toEqual([2, 12, 13]);
    expect(queue.recipe).toBe("curator-leader-latch");
  });

  it("auto follows the recipe of the lowest sequence and lists the rest as others", () => {
    const queue = orderContenders([`_c_${uuid}-lock-0000000005`, "aa__lock__0000000001", "bb__lock__0000000004", "leases"], "auto");
    expect(queue.recipe).toBe("kazoo-lock");
    expect(queue.contenders.map((c) => c.name)).toEqual(["aa__lock__0000000001", "bb__lock__0000000004"]);
    expect(queue.others).toEqual([`_c_${uuid}-lock-0000000005`, "leases"]);
  });

  it("a LeaderSelector is read as Curator's mutex layout; a configured recipe ignores other layouts", () => {
    const children = [`_c_${uuid}-lock-0000000001`, `_c_${uuid}-latch-0000000000`];
    expect(orderContenders(children, "curator-leader-selector").contenders.map((c) => c.sequence)).toEqual([1]);
    expect(orderContenders(children, "curator-leader-latch").contenders.map((c) => c.sequence)).toEqual([0]);
    expect(orderContenders([], "auto")).toEqual({ recipe: null, contenders: [], others: [] });
  });

  it("a lock node is one with recipe children, or a semaphore mutex's leases", () => {
    expect(hasContenders(["config", "status"], "auto")).toBe(false);
    expect(hasContenders(["leases", "locks"], "auto")).toBe(true);
    expect(hasContenders(["leases", "locks"], "kazoo-lock")).toBe(false);
    expect(hasContenders([`_c_${uuid}-latch-0000000000`], "kazoo-lock")).toBe(false);
  });
});

describe("readableData", () => {
  it.each([
    [Buffer.from("pod-a"), "pod-a"],
    [Buffer.from(" 10.0.0.7\n"), "10.0.0.7"],
    [Buffer.from(""), null],
    [null, null],
    [Buffer.from([0xac, 0xed, 0x00, 0x05]), null],
    [Buffer.from([0x01, 0x41]), null],
  ])("reads %j as %j", (data, expected) => {
    expect(readableData(data)).toBe(expected);
  });

  it("caps long data", () => {
    expect(readableData(Buffer.from("x".repeat(500)))).toHaveLength(200);
  });
});
