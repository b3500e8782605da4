import { describe, expect, it } from "vitest";

import { brokerLineOf } from "@/lib/pulsar/broker-line";

describe("the broker line of a version", () => {
  it.each([
    ["4.2.4", "4.2"],
    ["4.2.5-SNAPSHOT", "4.2"],
    ["3.0.7", "3.0"],
    [" 3.0.17\n", "3.0"],
    ["4.0.6", null],
    ["3.3.9", null],
    ["5.0.1", null],
    ["4.20.1", null],
    ["garbage", null],
  ])("%j → %s", (version, line) => {
    expect(brokerLineOf(version)).toBe(line);
  });
});
