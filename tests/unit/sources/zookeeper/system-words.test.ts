import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { LockKindCell, LockKindDetails } from "@/components/locks/kinds/kind-details";
import { describeKindChange, summarizeKindDetails } from "@/components/locks/kinds/kind-facts";
import { zookeeperDescription } from "@/lib/sources/zookeeper/zookeeper-description";

// How the board and the lock page tell a system's leader held in ZooKeeper: what the lock is to
// the system, the holder in its words, the standbys, and the system's own election count.

const NOW = Date.parse("2026-12-07T10:00:00.000Z");
const controller = {
  recipe: "ephemeral-node",
  system: "kafka",
  role: "Kafka controller",
  lockNodeExists: true,
  holderSessionId: "0x1000a2b3c0002",
  holderNodeCreatedAt: "2026-12-07T09:59:00.000Z",
  holderNodeCzxid: "0x1a",
  sessionExpiry: "server dump",
  holderData: { brokerId: 2, electedAt: "2026-12-07T09:59:00.000Z", version: 2 },
  standbys: ["broker 1", "broker 3"],
  electionCount: 9,
  electionCountName: "controller epoch",
  electionsMissed: 2,
};

describe("a system's leader on the pages", () => {
  it("the board's cell names the system first, then the session and the system's count", () => {
    expect(summarizeKindDetails("zookeeper", controller)).toBe("Kafka controller, session 0x1000a2b3c0002, controller epoch 9");
    expect(renderToStaticMarkup(createElement(LockKindCell, { kind: "zookeeper", details: controller }))).toContain("Kafka controller");
  });

  it("the lock page's panel: the system, the holder's data in its words, the standbys, the elections missed", () => {
    const html = renderToStaticMarkup(
      createElement(LockKindDetails, {
        kind: "zookeeper",
        details: controller,
        waiters: ["broker 1", "broker 3"],
        expiresAt: new Date(NOW + 3_000).toISOString(),
        lastReadAt: null,
        nowMs: NOW,
        isStale: false,
      }),
    );
    expect(html).toContain("Kafka controller");
    expect(html).toContain("brokerId: 2");
    expect(html).toContain("broker 1</li><li>broker 3");
    expect(html).toContain("Elections (the system&#x27;s controller epoch)");
    expect(html).toContain("2 elections missed (controller epoch 9)");
    expect(html).not.toContain("electionCount");
  });

  it("a node whose data named nobody says so, loudly", () => {
    const html = renderToStaticMarkup(
      createElement(LockKindDetails, {
        kind: "zookeeper",
        details: {
          recipe: "ephemeral-node",
          role: "HDFS NameNode ns1",
          lockNodeExists: true,
          holderSessionId: "0x1b",
          holderDataUnread: "not a ActiveNodeInfo protobuf (index out of range)",
        },
        waiters: [],
        expiresAt: null,
        lastReadAt: null,
        nowMs: NOW,
        isStale: false,
      }),
    );
    expect(html).toContain("HDFS NameNode ns1");
    expect(html).toContain("not a ActiveNodeInfo protobuf");
  });

  it("a change's words carry the elections Baton missed", () => {
    const words = describeKindChange("zookeeper", {
      kind: "HOLDER_CHANGED",
      fromHolder: "broker 2",
      toHolder: "broker 3",
      details: {
        tokenBefore: "0x1/0x1a",
        tokenAfter: "0x3/0x2f",
        sourceBefore: { ...controller, electionsMissed: 0 },
        sourceAfter: { ...controller, holderSessionId: "0x3" },
      },
    });
    expect(words?.words).toBe("session 0x3, was session 0x1000a2b3c0002, 2 elections missed (controller epoch 9)");
  });

  it("standbys race for a leader node: no next holder is predicted", () => {
    expect(zookeeperDescription.predictNextHolder(["broker 1"], controller)).toMatchObject({ holder: null, reason: "no-queue" });
    expect(zookeeperDescription.predictNextHolder(["pod-b"], { recipe: "curator-leader-latch" })).toMatchObject({ holder: "pod-b", reason: null });
  });
});
