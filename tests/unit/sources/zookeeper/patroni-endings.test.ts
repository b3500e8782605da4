import { describe, expect, it } from "vitest";

import { describeEnding, type FailoverRequest } from "@/lib/sources/zookeeper/systems/patroni-cluster";

// How a Patroni primary's hold on ZooKeeper ended, from what Baton read: the session's deadline
// (dump), the failover node's zxid against the two leader nodes' creations, and whether the next
// primary cleared a request as it took over. Pure; the real pairs are in
// tests/integration/poller/patroni-zookeeper.test.ts.

const pg0 = { name: "pg0", czxid: 100n, expiresAtMs: 10_000 };
const request = (fields: Partial<FailoverRequest>): FailoverRequest => ({ leader: "pg0", member: "pg1", scheduledAt: null, mzxid: 150n, ...fields });

describe("a Patroni primary's ending on ZooKeeper", () => {
  it("gone at or after its session's deadline: the session expired (failover)", () => {
    expect(describeEnding(pg0, 10_000, null, null)).toEqual({
      leader: "pg0",
      kind: "failover",
      ending: "EXPIRED",
      reason: "failover: pg0's ZooKeeper session expired",
    });
    // A request pending does not turn an expiry into a switchover.
    expect(describeEnding(pg0, 12_000, request({}), { name: "pg1", czxid: 200n, isRequestCleared: false }).kind).toBe("failover");
  });

  it("a request naming it, written after its node and before the next: a switchover, released", () => {
    expect(describeEnding(pg0, 5_000, request({}), { name: "pg1", czxid: 200n, isRequestCleared: false })).toEqual({
      leader: "pg0",
      kind: "switchover",
      ending: "RELEASED",
      reason: "switchover to pg1 requested",
    });
    // No leader named: a failover someone asked for (patronictl failover).
    expect(describeEnding(pg0, 5_000, request({ leader: null }), null)).toMatchObject({
      kind: "failover",
      ending: "RELEASED",
      reason: "failover to pg1 requested",
    });
  });

  it("a request older than its node, newer than the next one's, or naming another leader: not its switchover", () => {
    const next = { name: "pg1", czxid: 200n, isRequestCleared: false };
    expect(describeEnding(pg0, 5_000, request({ mzxid: 90n }), next).kind).toBe("released");
    expect(describeEnding(pg0, 5_000, request({ mzxid: 250n }), next).kind).toBe("released");
    expect(describeEnding(pg0, 5_000, request({ leader: "pg7" }), next).kind).toBe("released");
  });

  it("read only after the next primary cleared the request: still a switchover, said so", () => {
    expect(describeEnding(pg0, 5_000, null, { name: "pg1", czxid: 200n, isRequestCleared: true })).toMatchObject({
      kind: "switchover",
      ending: "RELEASED",
      reason: "switchover to pg1 requested (cleared as pg1 took over)",
    });
  });

  it("gone before the deadline with nothing asked: Patroni closed its session; with no deadline read, how is not known", () => {
    expect(describeEnding(pg0, 5_000, null, null)).toMatchObject({ kind: "released", ending: "RELEASED" });
    expect(describeEnding({ ...pg0, expiresAtMs: null }, 5_000, null, null)).toMatchObject({ kind: "released", ending: null });
  });
});
