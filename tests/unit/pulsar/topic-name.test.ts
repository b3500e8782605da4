import { describe, expect, it } from "vitest";

import { formatTopicName, isSystemTopic, parseStandaloneTopicName, parseTopicName, topicPath } from "@/lib/pulsar/topic-name";

describe("topic names", () => {
  it.each([
    ["persistent://acme/orders/events", { persistence: "persistent", tenant: "acme", namespace: "orders", local: "events" }, -1],
    ["persistent://acme/orders/events-partition-3", { persistence: "persistent", tenant: "acme", namespace: "orders", local: "events" }, 3],
    ["non-persistent://a/b/c-partition-10", { persistence: "non-persistent", tenant: "a", namespace: "b", local: "c" }, 10],
  ])("parses %s", (full, topic, partition) => {
    expect(parseTopicName(full)).toEqual({ topic, partition });
  });

  it("rejects what is not a topic name", () => {
    expect(parseTopicName("acme/orders/events")).toBeNull();
  });

  it("keeps a -partition-N suffix when asked to parse a standalone topic", () => {
    expect(parseStandaloneTopicName("persistent://a/b/c-partition-1")?.local).toBe("c-partition-1");
  });

  it("formats and builds admin paths, encoding each segment", () => {
    const topic = { persistence: "persistent" as const, tenant: "a", namespace: "b", local: "with space" };
    expect(formatTopicName(topic)).toBe("persistent://a/b/with space");
    expect(topicPath(topic)).toBe("persistent/a/b/with%20space");
  });

  it("knows system topics", () => {
    expect(isSystemTopic(parseTopicName("persistent://acme/ns/__change_events")!.topic)).toBe(true);
    expect(isSystemTopic(parseTopicName("persistent://pulsar/system/x")!.topic)).toBe(true);
    expect(isSystemTopic(parseTopicName("persistent://acme/ns/orders")!.topic)).toBe(false);
  });
});
