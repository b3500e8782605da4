import { describe, expect, it } from "vitest";

import { hasContenders, orderContenders, parseContender, readableData } from "@/lib/sources/zookeeper/recipe-layout";

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

  it.each(["leases", "locks", "lock-12", `_c_${uuid}-lock-`, "x__rlock__0000000001"])("reads %s as no contender", (name) => {
    expect(parseContender(name)).toBeNull();
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
