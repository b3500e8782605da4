import { describe, expect, it } from "vitest";

import { type ContenderReading, type LockReading, toLockObservation } from "@/lib/sources/zookeeper/lock-observation";
import { parseSessionDump } from "@/lib/sources/zookeeper/session-dump";

const at = "2026-11-24T10:00:00.000Z";

function contender(data: string, session: string | null, ctimeMs = Date.parse("2026-11-24T09:59:00.000Z")): ContenderReading {
  return { data: Buffer.from(data), stat: { ephemeralOwner: session, ctimeMs, czxid: "0x10", numChildren: 0 } };
}

function reading(children: string[] | null, contenders: [string, ContenderReading][], recipe: LockReading["recipe"] = "curator-leader-latch"): LockReading {
  return {
    path: "/election/orders",
    pattern: "/election/orders",
    recipe,
    contenderDir: "/election/orders",
    children,
    contenders: new Map(contenders),
    observedAt: at,
  };
}

const a = "_c_0a1b2c3d-4e5f-4a1b-8c9d-0e1f2a3b4c5d-latch-0000000000";
const b = "_c_1a1b2c3d-4e5f-4a1b-8c9d-0e1f2a3b4c5d-latch-0000000001";
const c = "_c_2a1b2c3d-4e5f-4a1b-8c9d-0e1f2a3b4c5d-latch-0000000002";

describe("toLockObservation", () => {
  it("the lowest sequence holds; the waiters follow in order; the token is the holder's session and node", () => {
    const obs = toLockObservation(
      reading(
        [c, a, b],
        [
          [a, contender("pod-a", "0x1a")],
          [b, contender("pod-b", "0x1b")],
          [c, contender("", "0x1c")],
        ],
      ),
      { dump: null, batonSessionTimeoutMs: 30_000 },
    );
    expect(obs).toMatchObject({
      resourceKey: "/election/orders",
      holder: "pod-a",
      holderToken: `0x1a/${a}`,
      waiters: ["pod-b", c],
      expiresAt: null,
      ttlMs: null,
      isSplit: false,
      observedAt: at,
    });
    expect(obs.details).toMatchObject({
      recipe: "curator-leader-latch",
      holderSessionId: "0x1a",
      holderNodeCreatedAt: "2026-11-24T09:59:00.000Z",
      sessionExpiry: "unknown (dump not allowed)",
      batonSessionTimeoutMs: 30_000,
    });
  });

  it("a holder node gone between getChildren and getData: the next one holds", () => {
    const obs = toLockObservation(
      reading(
        [a, b],
        [
          [a, null],
          [b, contender("pod-b", "0x1b")],
        ],
      ),
      { dump: null, batonSessionTimeoutMs: null },
    );
    expect(obs).toMatchObject({ holder: "pod-b", holderToken: `0x1b/${b}`, waiters: [] });
  });

  it("no children, or no node: free", () => {
    expect(toLockObservation(reading([], []), { dump: null, batonSessionTimeoutMs: null })).toMatchObject({ holder: null, holderToken: null, waiters: [] });
    expect(toLockObservation(reading(null, []), { dump: null, batonSessionTimeoutMs: null }).details).toMatchObject({ lockNodeExists: false });
  });

  it("the server's session deadline gives expiresAt and the time left", () => {
    const dump = parseSessionDump(["SessionTracker dump:", "Session Sets (1)/(1):", "1 expire at Tue Nov 24 10:00:04 UTC 2026:", "\t0x1a", ""].join("\n"));
    const obs = toLockObservation(reading([a], [[a, contender("pod-a", "0x1a")]]), { dump, batonSessionTimeoutMs: 30_000 });
    expect(obs).toMatchObject({ expiresAt: "2026-11-24T10:00:04.000Z", ttlMs: 4_000, details: { sessionExpiry: "server dump" } });
  });

  it("waiters beyond those read are named by their nodes", () => {
    const obs = toLockObservation(reading([a, b, c], [[a, contender("pod-a", "0x1a")]]), { dump: null, batonSessionTimeoutMs: null });
    expect(obs.waiters).toEqual([b, c]);
  });

  it("Solr's election queue: holder and waiters named by their node names (the nodes carry no data)", () => {
    const first = "166405419031556837-172.17.52.155:8080_solr-n_0000000115";
    const second = "166405419031556844-172.17.52.154:8080_solr-n_0000000117";
    const obs = toLockObservation(
      reading(
        [second, first],
        [
          [first, contender("", "0x24f3b1c7e2a0001")],
          [second, contender("", "0x24f3b1c7e2a0002")],
        ],
        "solr-election",
      ),
      { dump: null, batonSessionTimeoutMs: null },
    );
    expect(obs).toMatchObject({ holder: "172.17.52.155:8080_solr", waiters: ["172.17.52.154:8080_solr"], details: { recipe: "solr-election" } });
  });
});
