import { describe, expect, it } from "vitest";

import { findChangedLeaders, flattenBoard, partitionKey, staleReasonOf } from "@/lib/board/board-lines";
import { buildBoard } from "@/lib/board/build-board";
import { agoMs, cluster, NOW, resource, THRESHOLDS } from "@/tests/unit/board/builders";

const build = (resources: ReturnType<typeof resource>[]) =>
  buildBoard({ nowMs: NOW, thresholds: THRESHOLDS, clusters: [cluster()], deployments: [], resources }).subscriptions;

describe("board lines", () => {
  const groups = build([
    resource({ subscription: "a", partition: 0 }),
    resource({ subscription: "a", partition: 1 }),
    resource({ subscription: "b", partition: -1 }),
  ]);

  it("folds partitions under their subscription until it is expanded", () => {
    expect(flattenBoard(groups, new Set()).map((l) => l.key)).toEqual([groups[0]!.key, groups[1]!.key]);
    const expanded = flattenBoard(groups, new Set([groups[0]!.key, groups[1]!.key]));
    expect(expanded.map((l) => [l.kind, l.kind === "partition" ? l.row.partition : null])).toEqual([
      ["subscription", null],
      ["partition", 0],
      ["partition", 1],
      // A non-partitioned topic is a single line: nothing to expand.
      ["subscription", null],
    ]);
  });

  it("finds the rows whose leader changed between two refreshes, and their subscription", () => {
    const before = build([resource({ partition: 0, holder: "x" }), resource({ partition: 1, holder: "y" })]);
    const after = build([resource({ partition: 0, holder: "z" }), resource({ partition: 1, holder: "y" })]);
    const changed = findChangedLeaders(before, after);
    expect([...changed].sort()).toEqual([after[0]!.key, partitionKey(after[0]!, after[0]!.partitions[0]!)].sort());
    expect(partitionKey(after[0]!, after[0]!.partitions[0]!)).toBe("prod|persistent://acme/orders/events|billing|0");
    expect(findChangedLeaders(undefined, after).size).toBe(0);
  });

  it("does not call a stale row's last known holder a change, and says why it is stale", () => {
    const before = build([resource({ holder: "x" })]);
    const stale = build([resource({ holder: null, staleSince: agoMs(1_000), lastError: "HTTP 412" })]);
    expect(findChangedLeaders(before, stale).size).toBe(0);
    expect(staleReasonOf(stale[0]!.partitions[0]!)).toBe("polls fail: HTTP 412");
    expect(staleReasonOf(before[0]!.partitions[0]!)).toBeNull();
  });
});
