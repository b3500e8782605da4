import { describe, expect, it } from "vitest";

import { assignConsumerColors, colorForConsumer, CONSUMER_PALETTE, hashName } from "@/lib/timeline/consumer-colors";

describe("consumer colours", () => {
  it("are stable by name", () => {
    expect(hashName("orders-worker-1")).toBe(hashName("orders-worker-1"));
    expect(colorForConsumer("orders-worker-1")).toBe(colorForConsumer("orders-worker-1"));
    expect(assignConsumerColors(["b", "a", "c"])).toEqual(assignConsumerColors(["c", "b", "a", "a"]));
  });

  it("are distinct within a legend while the palette lasts, then repeat", () => {
    const names = Array.from({ length: CONSUMER_PALETTE.length }, (_, i) => `worker-${i}`);
    const colors = assignConsumerColors(names);
    expect(new Set(Object.values(colors)).size).toBe(CONSUMER_PALETTE.length);
    const more = assignConsumerColors([...names, "worker-x"]);
    expect(Object.keys(more)).toHaveLength(names.length + 1);
    expect(CONSUMER_PALETTE).toContain(more["worker-x"]);
  });

  it("give a consumer its own colour when nothing collides", () => {
    expect(assignConsumerColors(["solo"])).toEqual({ solo: colorForConsumer("solo") });
  });
});
