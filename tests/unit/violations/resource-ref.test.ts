import { describe, expect, it } from "vitest";

import { normaliseTopic, refMatches, resourceRefOf } from "@/lib/violations/resource-ref";

describe("normaliseTopic", () => {
  it.each([
    ["persistent://acme/orders/events", { topic: "persistent://acme/orders/events", partition: null }],
    ["persistent://acme/orders/events-partition-3", { topic: "persistent://acme/orders/events", partition: 3 }],
    ["non-persistent://acme/orders/events-partition-0", { topic: "non-persistent://acme/orders/events", partition: 0 }],
    ["acme/orders/events-partition-12", { topic: "persistent://acme/orders/events", partition: 12 }],
    ["events", { topic: "persistent://public/default/events", partition: null }],
    ["  events-partition-1  ", { topic: "persistent://public/default/events", partition: 1 }],
  ])("reads %s as the base topic and the partition its name carries", (input, expected) => {
    expect(normaliseTopic(input)).toEqual(expected);
  });

  it("refuses what is no topic name", () => {
    expect(normaliseTopic("acme/orders")).toBeNull();
    expect(normaliseTopic("kafka://x/y/z")).toBeNull();
  });
});

describe("resourceRefOf", () => {
  it("needs a topic and a subscription", () => {
    expect(resourceRefOf({ topic: null, subscription: "s", partition: 1 })).toBeNull();
    expect(resourceRefOf({ topic: "persistent://a/b/c", subscription: null, partition: 1 })).toBeNull();
  });

  it("takes the partition from the topic's name over the partition field, else the field (-1: not partitioned, null: unknown)", () => {
    expect(resourceRefOf({ topic: "persistent://a/b/c-partition-3", subscription: "s", partition: 5 })).toEqual({
      topic: "persistent://a/b/c",
      subscription: "s",
      partition: 3,
    });
    expect(resourceRefOf({ topic: "persistent://a/b/c", subscription: "s", partition: 5 })?.partition).toBe(5);
    expect(resourceRefOf({ topic: "persistent://a/b/c", subscription: "s", partition: -1 })?.partition).toBe(-1);
    expect(resourceRefOf({ topic: "persistent://a/b/c", subscription: "s", partition: null })?.partition).toBeNull();
  });

  it("matches held resources: every partition of the topic when the partition is unknown", () => {
    const known = { topic: "persistent://a/b/c", subscription: "s", partition: 3 };
    const unknown = { ...known, partition: null };
    expect(refMatches(known, { topic: "persistent://a/b/c", subscription: "s", partition: 3 })).toBe(true);
    expect(refMatches(known, { topic: "persistent://a/b/c", subscription: "s", partition: 2 })).toBe(false);
    expect(refMatches(known, { topic: "persistent://a/b/c", subscription: "t", partition: 3 })).toBe(false);
    expect(refMatches(unknown, { topic: "persistent://a/b/c", subscription: "s", partition: -1 })).toBe(true);
    expect(refMatches(unknown, { topic: "persistent://a/b/c", subscription: "s", partition: 7 })).toBe(true);
  });
});
