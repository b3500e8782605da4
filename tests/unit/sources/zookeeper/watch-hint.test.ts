import { describe, expect, it } from "vitest";

import { toZookeeperHint } from "@/lib/sources/zookeeper/watch-hint";

// A ZooKeeper watch never says whether a contender's node went by its client's hand or with its
// session: every watch is a change hint, and the read and the session deadline tell the ending.

describe("toZookeeperHint", () => {
  it.each(["created", "deleted", "changed", "children", "found"])("`%s` is a change, recorded in ZooKeeper's word", (event) => {
    expect(toZookeeperHint("/locks/daily-job", event, "2026-11-22T10:00:00.000Z")).toEqual({
      key: "/locks/daily-job",
      kind: "change",
      event,
      at: "2026-11-22T10:00:00.000Z",
    });
  });
});
