import { describe, expect, it } from "vitest";

import type { WatchedTopic } from "@/lib/sources/pulsar/discover-topics";
import { planRepolls } from "@/lib/sources/pulsar/plan-repolls";
import { parseStandaloneTopicName } from "@/lib/pulsar/topic-name";

function watched(fullName: string, isPartitioned: boolean): [string, WatchedTopic] {
  return [fullName, { name: parseStandaloneTopicName(fullName)!, fullName, isPartitioned }];
}

const topics = new Map([
  watched("persistent://t/ns/orders", true),
  watched("persistent://t/ns/audit", false),
  watched("persistent://t/ns/odd-partition-3", false),
]);

describe("planRepolls", () => {
  it("reads one partition's own stats when only it changed, the partitioned-stats when several did", () => {
    expect(planRepolls(["persistent://t/ns/orders-partition-4"], topics)).toEqual([{ topic: topics.get("persistent://t/ns/orders"), partition: 4 }]);
    expect(planRepolls(["persistent://t/ns/orders-partition-4", "persistent://t/ns/orders-partition-5"], topics)).toEqual([
      { topic: topics.get("persistent://t/ns/orders"), partition: null },
    ]);
  });

  it("reads a non-partitioned topic whole, also one named like a partition", () => {
    expect(planRepolls(["persistent://t/ns/audit", "persistent://t/ns/odd-partition-3"], topics).map((r) => [r.topic.fullName, r.partition])).toEqual([
      ["persistent://t/ns/audit", null],
      ["persistent://t/ns/odd-partition-3", null],
    ]);
  });

  it("leaves topics outside the watched scope alone", () => {
    expect(planRepolls(["persistent://t/ns/other-partition-0", "persistent://t/ns/__change_events", "not a topic"], topics)).toEqual([]);
  });
});
