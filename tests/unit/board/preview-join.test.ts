import { describe, expect, it } from "vitest";

import { previewJoin, suggestConsumerName } from "@/lib/board/preview-join";
import { describeNextHolder, summarizeNextHolders } from "@/lib/board/next-holder-words";

const TOPIC = "persistent://acme/orders/events";
const failover = { topic: TOPIC, subscriptionType: "Failover", isPartitioned: true, partitions: [0, 1, 2, 3], consumers: ["f-1", "f-2", "f-3"] };

describe("previewJoin", () => {
  it("names the partitions that change hands when a fourth consumer joins (docs/owner-rules.md's example)", () => {
    // 0:f-1 1:f-2 2:f-3 3:f-1 before; with f-4 partition 3 goes to f-4 and nothing else moves.
    expect(previewJoin(failover, "f-4")).toEqual({
      ok: true,
      moves: [{ topic: `${TOPIC}-partition-3`, partitionIndex: 3, from: "f-1", to: "f-4" }],
      partitionCount: 4,
      consumerCount: 4,
    });
  });

  it("moves more when the newcomer sorts first", () => {
    const preview = previewJoin(failover, "a-0");
    expect(preview.ok && preview.moves.map((m) => [m.partitionIndex, m.to])).toEqual([
      [0, "a-0"],
      [1, "f-1"],
      [2, "f-2"],
      [3, "f-3"],
    ]);
  });

  it("says why it cannot answer: not Failover, no name, a name already taken", () => {
    expect(previewJoin({ ...failover, subscriptionType: "Shared" }, "x")).toMatchObject({ ok: false, detail: expect.stringMatching(/only Failover/) });
    expect(previewJoin(failover, "  ")).toMatchObject({ ok: false });
    expect(previewJoin(failover, "f-2")).toMatchObject({ ok: false, detail: expect.stringMatching(/already a consumer/) });
  });

  it("uses the hash ring on a non-partitioned topic", () => {
    const preview = previewJoin({ ...failover, isPartitioned: false, partitions: [-1] }, "f-4");
    expect(preview.ok && preview.partitionCount).toBe(1);
  });
});

describe("suggestConsumerName", () => {
  it("continues the current names' numbering, else says new-consumer", () => {
    expect(suggestConsumerName(["w-1", "w-3", "w-2"])).toBe("w-4");
    expect(suggestConsumerName(["pod07", "pod08"])).toBe("pod09");
    expect(suggestConsumerName(["alpha", "beta"])).toBe("new-consumer");
  });
});

describe("next holder words", () => {
  it("labels a reason shortly and keeps the sentence for the tooltip", () => {
    expect(describeNextHolder({ holder: null, reason: "no-owner-rule", detail: "a Shared subscription has no active consumer" })).toEqual({
      label: "no rule",
      title: "Cannot be computed: a Shared subscription has no active consumer",
    });
    expect(describeNextHolder({ holder: null, reason: null, detail: null }).label).toBe("nobody");
  });

  it("summarises a subscription's partitions: the distinct names, else the reason", () => {
    const named = summarizeNextHolders([
      { holder: "b", reason: null, detail: null },
      { holder: "a", reason: null, detail: null },
      { holder: "b", reason: null, detail: null },
    ]);
    expect(named).toEqual({ names: ["a", "b"], fallback: null });
    const none = summarizeNextHolders([{ holder: null, reason: "no-owner-rule", detail: "x" }]);
    expect(none.fallback?.reason).toBe("no-owner-rule");
  });
});
