import { describe, expect, it } from "vitest";

import type { DetectedChange } from "@/lib/poller/change";
import { listSplitInputs } from "@/lib/poller/key-shared-range-history";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { digestHashRangeSplit } from "@/lib/poller/split-digest";
import type { ResourceState } from "@/lib/poller/contract/partition-state";

const SEEN = "2026-11-22T10:02:04.200Z";
const BEFORE = "2026-11-22T10:02:03.700Z";
const split: HashRangeSplit = {
  space: 65_536,
  consumers: [
    { consumer: "consumer-a", ranges: [[1, 32_767]] },
    { consumer: "consumer-b", ranges: [[32_768, 65_535]] },
  ],
};

function state(resourceKey: string, overrides: Partial<ResourceState>): ResourceState {
  return {
    resourceKey,
    topic: "persistent://t/ns/clicks",
    tenant: "t",
    namespace: "t/ns",
    partition: -1,
    subscription: "readers",
    subscriptionType: "Key_Shared",
    isDurable: true,
    holder: null,
    consumers: [],
    hashRanges: split,
    backlog: 0,
    msgRateOut: 0,
    holderSince: null,
    lastObservedAt: SEEN,
    staleSince: null,
    lastError: null,
    lastErrorAt: null,
    goneAt: null,
    lastChangeAt: null,
    recentSamples: [],
    ...overrides,
  };
}

const moved = (resourceKey: string): DetectedChange => ({
  resourceKey,
  kind: "RANGES_MOVED",
  cause: "CLIENT",
  fromHolder: null,
  toHolder: null,
  oldSeenAt: BEFORE,
  newSeenAt: SEEN,
  isDuringGap: false,
  details: {},
});

describe("listSplitInputs", () => {
  const ids = new Map([
    ["ks", 1n],
    ["moved", 2n],
    ["emptied", 3n],
    ["gone", 4n],
    ["failover", 5n],
  ]);

  it("gives each Key_Shared state's split, when it was seen, and when the previous split was last seen", () => {
    const inputs = listSplitInputs(
      [
        state("ks", {}),
        state("moved", {}),
        state("emptied", { hashRanges: null }),
        state("gone", { goneAt: "2026-11-22T10:05:00.000Z" }),
        state("failover", { subscriptionType: "Failover", hashRanges: null, holder: "w1" }),
        state("unknown-id", {}),
      ],
      ids,
      [moved("moved"), moved("emptied")],
    );
    expect(inputs).toEqual([
      { resourceId: 1n, signature: digestHashRangeSplit(split), split: JSON.stringify(split), seenAt: SEEN, changedAfter: null },
      { resourceId: 2n, signature: digestHashRangeSplit(split), split: JSON.stringify(split), seenAt: SEEN, changedAfter: BEFORE },
      // The ranges went (every consumer left): the current split is closed, none opened.
      { resourceId: 3n, signature: null, split: null, seenAt: SEEN, changedAfter: BEFORE },
      // The subscription is gone: closed at goneAt.
      { resourceId: 4n, signature: null, split: null, seenAt: "2026-11-22T10:05:00.000Z", changedAfter: null },
    ]);
  });
});
