import { describe, expect, it } from "vitest";

import {
  checkFlapping,
  checkGone,
  checkHashRangeGap,
  checkHashRangeOverlap,
  checkIdleStandbys,
  checkNoActiveConsumer,
  checkOneHolderForAll,
  checkReader,
  checkStale,
  checkStuckLeader,
  evaluateResource,
  isDeploymentOf,
  staleLimitMs,
  worstHealth,
} from "@/lib/board/health-rules";
import { ago, agoMs, context, resource } from "@/tests/unit/board/builders";

const samples = (backlogs: (number | null)[], holder: string | null = "billing-1") =>
  backlogs.map((backlog, i) => ({ at: ago((backlogs.length - i) * 5_000), backlog, msgRateOut: 0, holder }));

describe("stale", () => {
  it("is stale, since the first failed poll and with its error, while the poller says polls fail", () => {
    const flag = checkStale(resource({ staleSince: agoMs(30_000), lastError: "cannot reach 127.0.0.1:8080: ECONNREFUSED" }), context());
    expect(flag).toMatchObject({ rule: "stale", severity: "unknown", label: "Stale", since: ago(30_000) });
    expect(flag!.detail).toContain("ECONNREFUSED");
  });

  it("is stale when nobody observed it for longer than the limit, and says when the whole cluster went silent", () => {
    const silentWorker = checkStale(resource({ lastObservedAt: agoMs(60_000) }), context({ clusterLastPollAt: ago(60_000) }));
    expect(silentWorker).toMatchObject({ rule: "stale", since: ago(60_000) });
    expect(silentWorker!.detail).toMatch(/worker running/);
    const pollerSkipsIt = checkStale(resource({ lastObservedAt: agoMs(60_000) }), context({ clusterLastPollAt: ago(1_000) }));
    expect(pollerSkipsIt!.detail).toMatch(/not observed .* although prod is polled/);
  });

  it("is current within the limit", () => {
    expect(checkStale(resource({ lastObservedAt: agoMs(14_000) }), context({ staleAfterMs: 15_000 }))).toBeNull();
  });

  it("waits three poll intervals (or three real cycles when longer), never less than ten seconds", () => {
    expect(staleLimitMs(5_000, null)).toBe(15_000);
    expect(staleLimitMs(5_000, 20_000)).toBe(60_000);
    expect(staleLimitMs(500, 600)).toBe(10_000);
  });

  it("judges nothing else on stale data: a stale resource without a holder is stale, not 'no active consumer'", () => {
    const flags = evaluateResource(resource({ holder: null, consumers: [], staleSince: agoMs(10_000), lastError: "HTTP 412" }), context());
    expect(flags.map((f) => f.rule)).toEqual(["stale"]);
  });
});

describe("no active consumer", () => {
  it.each([
    ["Failover without consumers", { holder: null, consumers: [] }, "No active consumer"],
    ["Exclusive without holder", { subscriptionType: "Exclusive", holder: null, consumers: [] }, "No active consumer"],
    ["consumers but none active", { holder: null, consumers: ["a", "b"] }, "No active consumer"],
    ["type unknown (no consumers ever)", { subscriptionType: null, holder: null, consumers: [] }, "No active consumer"],
    ["Key_Shared without consumers", { subscriptionType: "Key_Shared", holder: null, consumers: [] }, "No consumers"],
  ])("flags %s", (_name, overrides, label) => {
    expect(checkNoActiveConsumer(resource(overrides))).toMatchObject({ rule: "no-active-consumer", severity: "critical", label });
  });

  it("does not flag a held partition, nor Key_Shared with consumers (it has no single holder)", () => {
    expect(checkNoActiveConsumer(resource())).toBeNull();
    expect(checkNoActiveConsumer(resource({ subscriptionType: "Key_Shared", holder: null, consumers: ["a"] }))).toBeNull();
  });
});

describe("flapping", () => {
  const deployment = { service: "billing", version: "2.3.0", startedAt: ago(300_000), finishedAt: ago(200_000) };

  const lately = { holderSince: agoMs(10_000), lastChangeAt: agoMs(10_000) };

  it("flags more than N changes in the window as critical", () => {
    expect(checkFlapping(resource({ changesInWindow: 4, ...lately }), context())).toBeNull();
    expect(checkFlapping(resource({ changesInWindow: 5, ...lately }), context())).toMatchObject({
      rule: "flapping",
      severity: "critical",
      label: "Flapping: 5 changes in 10 min",
    });
  });

  it("ends once the holder has kept it for the recovery hold (a minute), while the window still counts the changes", () => {
    expect(checkFlapping(resource({ changesInWindow: 5, holderSince: agoMs(59_000), lastChangeAt: agoMs(59_000) }), context())).not.toBeNull();
    expect(checkFlapping(resource({ changesInWindow: 5, holderSince: agoMs(60_000), lastChangeAt: agoMs(60_000) }), context())).toBeNull();
    // A hidden flap (the same holder again) is a change: it is not calm since its tenure began.
    expect(checkFlapping(resource({ changesInWindow: 5, holderSince: agoMs(600_000), lastChangeAt: agoMs(5_000) }), context())).not.toBeNull();
    const configured = context({ thresholds: { ...context().thresholds, recoveredAfterMs: 5_000 } });
    expect(checkFlapping(resource({ changesInWindow: 5, ...lately }), configured)).toBeNull();
  });

  it("names the deployment of a consumer's service, at a lower severity", () => {
    expect(checkFlapping(resource({ changesInWindow: 7, ...lately }), context({ deployments: [deployment] }))).toMatchObject({
      rule: "flapping-during-deployment",
      severity: "warning",
      label: "Flapping during deployment of billing",
    });
  });

  it.each([
    ["the subscription's name", { subscription: "billing", consumers: [] }, true],
    ["a consumer name prefix", { subscription: "s", consumers: ["billing-7d9f-abc"] }, true],
    ["the holder's name prefix", { subscription: "s", consumers: [], holder: "billing.worker-1" }, true],
    ["a mere string prefix", { subscription: "s", consumers: ["billingreport-1"] }, false],
    ["another service", { subscription: "s", consumers: ["orders-1"] }, false],
  ])("matches a deployment by %s: %s", (_name, overrides, expected) => {
    expect(isDeploymentOf(deployment, { holder: null, ...overrides })).toBe(expected);
  });
});

describe("stuck leader", () => {
  it("flags a backlog that grew at each of the last N samples under the same holder", () => {
    const flag = checkStuckLeader(resource({ recentSamples: samples([100, 250, 400]) }), 3);
    expect(flag).toMatchObject({ rule: "stuck-leader", severity: "critical", label: "Stuck leader" });
    expect(flag!.detail).toContain("from 100 to 400");
  });

  it.each([
    ["too few samples", samples([100, 250])],
    ["a flat step", samples([100, 250, 250])],
    ["a drop", samples([100, 50, 400])],
    ["an unknown backlog", samples([100, null, 400])],
  ])("does not flag %s", (_name, recent) => {
    expect(checkStuckLeader(resource({ recentSamples: recent }), 3)).toBeNull();
  });

  it("does not flag growth across a holder change, nor a resource nobody holds", () => {
    const mixed = [...samples([100, 200], "billing-2"), ...samples([300], "billing-1")];
    expect(checkStuckLeader(resource({ recentSamples: mixed }), 3)).toBeNull();
    expect(checkStuckLeader(resource({ holder: null, recentSamples: samples([1, 2, 3], null) }), 3)).toBeNull();
  });
});

describe("Key_Shared hash ranges", () => {
  const split = (ranges: [string, [number, number][]][]) => ({ space: 65_536, consumers: ranges.map(([consumer, r]) => ({ consumer, ranges: r })) });

  it("flags a gap and an overlap, each with its share of the space", () => {
    const broken = resource({
      subscriptionType: "Key_Shared",
      holder: null,
      hashRanges: split([
        ["a", [[0, 30000]]],
        ["b", [[29000, 40000]]],
        ["c", [[40001, 65535 - 6554]]],
      ]),
    });
    expect(checkHashRangeGap(broken)).toMatchObject({ rule: "hash-range-gap", severity: "critical" });
    expect(checkHashRangeGap(broken)!.detail).toMatch(/^1 range \(10\.0% of the hash space\)/);
    expect(checkHashRangeOverlap(broken)).toMatchObject({ rule: "hash-range-overlap", severity: "critical" });
  });

  it("passes a clean split, also one that starts at hash 1 (4.x)", () => {
    const clean = resource({
      subscriptionType: "Key_Shared",
      hashRanges: split([
        ["a", [[1, 30000]]],
        ["b", [[30001, 65535]]],
      ]),
    });
    expect(checkHashRangeGap(clean)).toBeNull();
    expect(checkHashRangeOverlap(clean)).toBeNull();
    expect(checkHashRangeGap(resource())).toBeNull();
  });
});

describe("subscription-level rules", () => {
  const partitions = (holders: (string | null)[], consumers: string[]) => holders.map((holder, partition) => resource({ partition, holder, consumers }));

  it("flags idle standbys: more consumers than partitions on a partitioned Failover topic", () => {
    const flag = checkIdleStandbys(partitions(["a", "b"], ["a", "b", "c"]));
    expect(flag).toMatchObject({ rule: "idle-standbys", severity: "info" });
    expect(flag!.detail).toBe("3 consumers for 2 partitions: c holds nothing");
    expect(checkIdleStandbys(partitions(["a", "b"], ["a", "b"]))).toBeNull();
    // A standby of a non-partitioned topic is what Failover is for.
    expect(checkIdleStandbys([resource({ partition: -1, consumers: ["a", "b"] })])).toBeNull();
  });

  it("flags one consumer holding every partition while others stand by", () => {
    expect(checkOneHolderForAll(partitions(["a", "a", "a"], ["a", "b"]))).toMatchObject({ rule: "one-holder-for-all", severity: "warning" });
    expect(checkOneHolderForAll(partitions(["a", "a"], ["a"]))).toBeNull();
    expect(checkOneHolderForAll(partitions(["a", "b"], ["a", "b"]))).toBeNull();
    expect(checkOneHolderForAll(partitions(["a", "a"], ["a", "b"]).map((p) => ({ ...p, subscriptionType: "Exclusive" })))).toBeNull();
  });
});

describe("gone, reader, and the worst of several", () => {
  it("tells gone and readers, as information", () => {
    expect(checkGone(resource({ goneAt: agoMs(1_000) }))).toMatchObject({ rule: "gone", severity: "info", since: ago(1_000) });
    expect(checkReader(resource({ isDurable: false }))).toMatchObject({ rule: "reader", severity: "info" });
  });

  it("orders flags worst first and takes the worst as the health", () => {
    const flags = evaluateResource(resource({ holder: null, consumers: [], isDurable: false, changesInWindow: 9 }), context());
    expect(flags.map((f) => f.severity)).toEqual(["critical", "critical", "info"]);
    expect(worstHealth(flags)).toBe("critical");
    expect(worstHealth([])).toBe("ok");
  });
});
