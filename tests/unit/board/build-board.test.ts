import { describe, expect, it } from "vitest";

import type { DeploymentWindow } from "@/lib/board/board-types";
import { buildBoard } from "@/lib/board/build-board";
import { ago, agoMs, cluster, NOW, resource, THRESHOLDS } from "@/tests/unit/board/builders";

const board = (resources: ReturnType<typeof resource>[], clusters = [cluster()], deployments: DeploymentWindow[] = []) =>
  buildBoard({ nowMs: NOW, thresholds: THRESHOLDS, clusters, resources, deployments });

describe("the leaders board", () => {
  it("groups partitions under their subscription, in partition order, with the subscription's totals", () => {
    const result = board([
      resource({ partition: 1, holder: "b", consumers: ["a", "b", "c"], backlog: 5, lastChangeAt: agoMs(60_000), holderSince: agoMs(60_000) }),
      resource({ partition: 0, holder: "a", consumers: ["a", "b", "c"], backlog: 7 }),
    ]);
    expect(result.subscriptions).toHaveLength(1);
    const group = result.subscriptions[0]!;
    expect(group).toMatchObject({
      key: "prod|persistent://acme/orders/events|billing",
      isPartitioned: true,
      holders: ["a", "b"],
      consumers: ["a", "b", "c"],
      idleConsumers: ["c"],
      heldCount: 2,
      backlog: 12,
      lastChangeAt: ago(60_000),
      latestHolderSince: ago(60_000),
      health: "info",
    });
    expect(group.partitions.map((p) => [p.partition, p.holder, p.standbys])).toEqual([
      [0, "a", ["b", "c"]],
      [1, "b", ["a", "c"]],
    ]);
    expect(group.flags.map((f) => f.rule)).toEqual(["idle-standbys"]);
  });

  it("sorts by cluster, topic and subscription only, whatever their health: a row keeps its place between refreshes", () => {
    const result = board(
      [
        resource({ subscription: "calm" }),
        resource({ subscription: "stale", staleSince: agoMs(20_000), lastError: "HTTP 412" }),
        resource({ subscription: "leaderless", holder: null, consumers: [] }),
        resource({ subscription: "deploying", changesInWindow: 6, consumers: ["deploying-1"], holderSince: agoMs(10_000), lastChangeAt: agoMs(10_000) }),
        resource({ subscription: "a-calm" }),
      ].map((r) => ({ ...r, partition: -1 })),
      [cluster()],
      [{ service: "deploying", version: "1", startedAt: ago(120_000), finishedAt: null }],
    );
    expect(result.subscriptions.map((g) => [g.subscription, g.health])).toEqual([
      ["a-calm", "ok"],
      ["calm", "ok"],
      ["deploying", "warning"],
      ["leaderless", "critical"],
      ["stale", "unknown"],
    ]);
  });

  it("counts each partition flag once per subscription, saying on how many partitions", () => {
    const result = board([
      resource({ partition: 0, holder: null, consumers: [] }),
      resource({ partition: 1 }),
      resource({ partition: 2, holder: null, consumers: [] }),
    ]);
    expect(result.subscriptions[0]!.flags.map((f) => f.label)).toEqual(["No active consumer (2 of 3 partitions)"]);
  });

  it("shows stale data as stale, with the last known holder and the error, and judges no subscription rule on it", () => {
    const result = board([
      resource({ partition: 0, holder: "a", consumers: ["a"], staleSince: agoMs(40_000), lastError: "cannot reach broker: ECONNREFUSED" }),
      resource({ partition: 1, holder: "a", consumers: ["a", "b"], staleSince: agoMs(30_000), lastError: "cannot reach broker: ECONNREFUSED" }),
    ]);
    const group = result.subscriptions[0]!;
    expect(group.health).toBe("unknown");
    expect(group.staleCount).toBe(2);
    expect(group.holders).toEqual([]);
    expect(group.flags).toEqual([expect.objectContaining({ rule: "stale", label: "Stale (2 of 2 partitions)", since: ago(40_000) })]);
    expect(group.partitions[0]).toMatchObject({ holder: "a", staleSince: ago(40_000), health: "unknown" });
    expect(group.partitions[0]!.flags[0]!.detail).toBe("polls fail: cannot reach broker: ECONNREFUSED");
  });

  it("turns everything stale when the cluster has not been polled for three intervals (a dead worker)", () => {
    const result = board([resource({ lastObservedAt: agoMs(120_000) })], [cluster({ lastPollAt: ago(120_000) })]);
    expect(result.subscriptions[0]!.partitions[0]).toMatchObject({ health: "unknown", staleSince: ago(120_000) });
    expect(result.clusters[0]).toMatchObject({ name: "prod", isSilent: true, resourceCount: 1 });
  });

  it("gives Key_Shared partitions their consumers' shares of the hash space, largest first", () => {
    const result = board([
      resource({
        subscriptionType: "Key_Shared",
        holder: null,
        consumers: ["a", "b"],
        hashRanges: {
          space: 65_536,
          consumers: [
            { consumer: "a", ranges: [[0, 16383]] },
            { consumer: "b", ranges: [[16384, 65535]] },
          ],
        },
      }),
    ]);
    const group = result.subscriptions[0]!;
    expect(group.partitions[0]!.hashShares).toEqual([
      { consumer: "b", share: 0.75 },
      { consumer: "a", share: 0.25 },
    ]);
    expect(group.idleConsumers).toEqual([]);
    expect(group.health).toBe("ok");
  });

  it("leaves out resources of clusters it was not asked about, and reports each cluster it was", () => {
    const result = board([resource({ cluster: "other" })], [cluster(), cluster({ name: "empty", lastPollAt: null })]);
    expect(result.subscriptions).toEqual([]);
    expect(result.clusters.map((c) => [c.name, c.resourceCount, c.isSilent])).toEqual([
      ["prod", 0, false],
      ["empty", 0, false],
    ]);
  });
});
