import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { LockKindCell, LockKindDetails } from "@/components/locks/kinds/kind-details";
import { describeKindChange, isEtcdLeaseUnrenewed, readZookeeperWaiters, summarizeKindDetails, zookeeperSequence } from "@/components/locks/kinds/kind-facts";

const NOW = Date.parse("2026-11-24T10:00:00.000Z");
const panel = (kind: string, details: Record<string, unknown>, waiters: string[] = [], expiresAt: string | null = null) =>
  renderToStaticMarkup(createElement(LockKindDetails, { kind, details, waiters, expiresAt, lastReadAt: null, nowMs: NOW, isStale: false }));

describe("ZooKeeper details", () => {
  it("reads the sequence of Curator's and Kazoo's nodes, and pairs each waiter with its node", () => {
    expect(zookeeperSequence("_c_2d3c0f4e-8a59-4a36-9f0e-3f0e8e1c6d11-latch-0000000012")).toBe(12);
    expect(zookeeperSequence("9f2c__lock__0000000003")).toBe(3);
    expect(zookeeperSequence("leases")).toBeNull();
    const details = {
      waiterNodes: [
        { node: "latch-0000000004", session: "0x2b" },
        { node: "latch-0000000007", session: "0x3c" },
      ],
    };
    expect(readZookeeperWaiters(["pod-b", "pod-c"], details)).toEqual([
      { name: "pod-b", node: "latch-0000000004", sequence: 4, session: "0x2b" },
      { name: "pod-c", node: "latch-0000000007", sequence: 7, session: "0x3c" },
    ]);
  });

  it("marks a new session of the same participant, and tells a handover by its sessions", () => {
    const flap = describeKindChange("zookeeper", {
      kind: "HIDDEN_FLAP",
      fromHolder: "pod-a",
      toHolder: "pod-a",
      details: {
        tokenBefore: "0x1a/latch-0000000001",
        tokenAfter: "0x2b/latch-0000000004",
        sourceAfter: { holderSessionId: "0x2b", holderNode: "latch-0000000004" },
      },
    });
    expect(flap).toEqual({ words: "new session of the same participant: session 0x1a → 0x2b, node sequence 4", isLoud: true });
    // Older rows without the source details: the token's "<session>/<node>" still tells the sessions.
    const handover = describeKindChange("zookeeper", {
      kind: "HOLDER_CHANGED",
      fromHolder: "pod-a",
      toHolder: "pod-b",
      details: { tokenBefore: "0x1a/latch-0000000001", tokenAfter: "0x2b/latch-0000000002" },
    });
    expect(handover).toEqual({ words: "session 0x2b, was session 0x1a", isLoud: false });
  });

  it("shows the session's time left only when the server's dump told it", () => {
    const known = panel(
      "zookeeper",
      { holderNode: "latch-0000000001", holderSessionId: "0x1a", sessionExpiry: "server dump" },
      [],
      new Date(NOW + 4_000).toISOString(),
    );
    expect(known).toContain("4 s left");
    expect(known).toContain("0x1a");
    const unknown = panel("zookeeper", { holderNode: "latch-0000000001", holderSessionId: "0x1a", sessionExpiry: "unknown (dump not allowed)" });
    expect(unknown).toContain("unknown (dump not allowed)");
    expect(unknown).not.toMatch(/\d+ s left/);
  });
});

describe("etcd details", () => {
  it("flags a lease nobody renews (under half its granted TTL left), not one a live holder keeps alive", () => {
    expect(isEtcdLeaseUnrenewed({ leaseTtlS: 9, leaseGrantedTtlS: 10 })).toBe(false);
    expect(isEtcdLeaseUnrenewed({ leaseTtlS: 7, leaseGrantedTtlS: 10 })).toBe(false);
    expect(isEtcdLeaseUnrenewed({ leaseTtlS: 4, leaseGrantedTtlS: 10 })).toBe(true);
    expect(isEtcdLeaseUnrenewed({ leaseTtlS: null, leaseGrantedTtlS: 10 })).toBe(false);
    const flagged = panel("etcd", { leaseId: "694d7a1b2c3d4e5f", leaseTtlS: 3, leaseGrantedTtlS: 10, createRevision: 12, modRevision: 12, revision: 15 });
    expect(flagged).toContain("still running after it stopped");
    expect(
      renderToStaticMarkup(createElement(LockKindCell, { kind: "etcd", details: { leaseTtlS: 3, leaseGrantedTtlS: 10, createRevision: 12, modRevision: 12 } })),
    ).toContain("lease not renewed");
    expect(summarizeKindDetails("etcd", { leaseTtlS: 9, leaseGrantedTtlS: 10, createRevision: 12, modRevision: 14 })).toBe("rev 14, lease 10 s");
  });

  it("tells a change's lease and create revision, from the source details or the token", () => {
    expect(
      describeKindChange("etcd", {
        kind: "HOLDER_CHANGED",
        fromHolder: "a",
        toHolder: "b",
        details: { tokenAfter: "694d@21", sourceBefore: { leaseTtlS: 2 } },
      }),
    ).toEqual({
      words: "lease 694d, create revision 21, the previous lease had 2 s left",
      isLoud: false,
    });
  });
});

describe("a Patroni cluster on etcd", () => {
  const cluster = {
    layout: "patroni",
    system: "patroni",
    role: "Patroni cluster batman",
    scope: "batman",
    key: "/service/batman/leader",
    leaseId: "2e46a24db8212809",
    createRevision: 25,
    modRevision: 25,
    leaseTtlS: 19,
    leaseGrantedTtlS: 20,
    timeline: 2,
    primary: { role: "master", state: "running", timeline: 2 },
    standbys: [
      { name: "pg1", role: "replica", state: "streaming", timeline: 2 },
      { name: "pg2", role: "replica", state: "running", timeline: 2, isNoFailover: true },
    ],
    lagBytes: { pg1: 0, pg2: 16_777_216 },
    previousPrimary: { name: "pg0", kind: "switchover", ending: "RELEASED", reason: "switchover to pg1 requested" },
  };

  it("leads the board's cell with the system, then its standbys", () => {
    expect(summarizeKindDetails("etcd", cluster)).toBe("Patroni cluster batman, 2 standbys, rev 25, lease 20 s");
  });

  it("shows the primary, each standby with its lag, and how the last primary's hold ended", () => {
    const html = panel("etcd", cluster);
    expect(html).toContain("Patroni cluster batman");
    expect(html).toContain("master, running, timeline 2");
    expect(html).toContain("pg1: replica, streaming, timeline 2, 0 B behind");
    expect(html).toContain("pg2: replica, running, timeline 2, 16.0 MB behind (nofailover: never promoted)");
    expect(html).toContain("pg0: released: switchover to pg1");
    // Patroni's own fields are read, not listed again as unknown ones.
    expect(html).not.toContain("lagBytes");
  });

  it("words a switchover, a manual failover, a lost lease and a stop as Patroni's, on the change that ended that primary's hold", () => {
    const change = (previousPrimary: Record<string, unknown>, toHolder: string | null = "pg1") =>
      describeKindChange("etcd", {
        kind: toHolder ? "HOLDER_CHANGED" : "HOLDER_LOST",
        fromHolder: "pg0",
        toHolder,
        details: { sourceAfter: { previousPrimary } },
      })?.words;
    expect(change({ name: "pg0", kind: "switchover", ending: "RELEASED", reason: "switchover to pg1 requested" })).toBe("released: switchover to pg1");
    expect(change({ name: "pg0", kind: "failover", ending: "RELEASED", reason: "failover to pg1 requested" })).toBe("released: manual failover to pg1");
    expect(change({ name: "pg0", kind: "failover", ending: "EXPIRED", reason: "failover: pg0's lease expired" })).toBe(
      "expired: failover (pg0's lease ran out)",
    );
    expect(change({ name: "pg0", kind: "released", ending: "RELEASED", reason: "pg0 deleted its leader key" }, null)).toBe(
      "released: pg0 deleted its leader key",
    );
    // The previous primary was another member: not this change's ending.
    expect(change({ name: "pgX", kind: "failover", ending: "EXPIRED", reason: "failover: pgX's lease expired" }, null)).toBeUndefined();
  });
});

describe("a Patroni cluster on ZooKeeper", () => {
  const cluster = {
    recipe: "ephemeral-node",
    system: "patroni",
    role: "Patroni cluster batman",
    lockNodeExists: true,
    holderSessionId: "0x100000abc",
    standbys: ["pg1"],
    standbyMembers: [{ name: "pg1", role: "replica", state: "streaming", timeline: 3 }],
    lagBytes: { pg1: 2048 },
    timeline: 3,
    primary: { role: "master", state: "running", timeline: 3 },
    previousPrimary: { name: "pg0", kind: "failover", ending: "EXPIRED", reason: "failover: pg0's ZooKeeper session expired" },
  };

  it("shows the same Patroni facts as on etcd: the primary, each standby's lag, the last primary's ending", () => {
    const html = panel("zookeeper", cluster);
    expect(html).toContain("Patroni cluster batman");
    expect(html).toContain("master, running, timeline 3");
    expect(html).toContain("pg1: replica, streaming, timeline 3, 2.0 KB behind");
    expect(html).toContain("pg0: expired: failover (pg0&#x27;s session ran out)");
    expect(html).not.toContain("standbyMembers");
  });

  it("words the change that ended a primary's hold by its session", () => {
    const words = (previousPrimary: Record<string, unknown>) =>
      describeKindChange("zookeeper", { kind: "HOLDER_CHANGED", fromHolder: "pg0", toHolder: "pg1", details: { sourceAfter: { previousPrimary } } })?.words;
    expect(words({ name: "pg0", kind: "failover", ending: "EXPIRED", reason: "failover: pg0's ZooKeeper session expired" })).toMatch(
      /^expired: failover \(pg0's session ran out\)/,
    );
    expect(words({ name: "pg0", kind: "switchover", ending: "RELEASED", reason: "switchover to pg1 requested (cleared as pg1 took over)" })).toMatch(
      /^released: switchover to pg1/,
    );
    expect(words({ name: "pg0", kind: "released", ending: "RELEASED", reason: "pg0 closed its ZooKeeper session" })).toMatch(
      /^released: pg0 closed its session/,
    );
  });
});

describe("Redis, DynamoDB and unknown kinds", () => {
  it("lists a Redlock group's token per master and a Redisson lock's reentrancy", () => {
    const redlock = panel("redis", {
      layout: "token",
      redlock: true,
      majority: 2,
      masters: { "127.0.0.1:6380": "6f1c9a2e…77d0", "127.0.0.1:6381": null },
      holdingMasters: 1,
    });
    expect(redlock).toContain("127.0.0.1:6380");
    expect(redlock).toContain("6f1c9a2e…77d0");
    expect(redlock).toContain("majority 2");
    expect(panel("redis", { layout: "redisson", reentrancy: 2 })).toContain("held 2×");
    const fair = panel("redis", {
      layout: "redisson",
      reentrancy: 1,
      waiterTimeouts: [{ waiter: "3f1a2b4c:57", timeoutAt: "2026-11-24T10:00:05.000Z" }],
      neverExpires: true,
    });
    expect(fair).toContain("3f1a2b4c:57 (gives up at");
    expect(fair).toContain("never expires");
    expect(panel("redis", { masters: ["127.0.0.1:6380 pod-g"] })).toContain("127.0.0.1:6380 pod-g");
    expect(summarizeKindDetails("redis", { redlock: true, masters: { a: "t", b: "t", c: null }, holdingMasters: 2 })).toBe("Redlock 2/3 masters");
  });

  it("renders a DynamoDB item's record version, lease, unchanged time, release and sort key", () => {
    const html = panel("dynamodb", {
      recordVersionNumber: "3f6c2a9e-1b",
      leaseDurationMs: 20_000,
      versionUnchangedForMs: 45_000,
      isReleased: false,
      sortKey: "shard-2",
    });
    expect(html).toContain("DynamoDB details");
    expect(html).toContain("3f6c2a9e-1b");
    expect(html).toContain("20 s");
    expect(html).toContain("45 s");
    expect(html).toContain("shard-2");
    expect(
      describeKindChange("dynamodb", {
        kind: "HIDDEN_FLAP",
        fromHolder: "a",
        toHolder: "a",
        details: { sourceBefore: { recordVersionNumber: "v1" }, sourceAfter: { recordVersionNumber: "v2" } },
      })?.words,
    ).toBe("record version v1 → v2");
  });

  it("shows a kind without a panel, and a known kind's new fields, as a plain key/value list", () => {
    const html = panel("kubernetes", { holderIdentity: "pod-a", leaseTransitions: 4 });
    expect(html).toContain("holderIdentity");
    expect(html).toContain("pod-a");
    expect(html).toContain("leaseTransitions");
    expect(panel("etcd", { leaseId: "1", brandNewField: "x" })).toContain("brandNewField");
    expect(describeKindChange("kubernetes", { kind: "HOLDER_CHANGED", fromHolder: "a", toHolder: "b", details: {} })).toBeNull();
  });
});
