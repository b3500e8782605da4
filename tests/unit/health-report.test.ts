import { describe, expect, it } from "vitest";

import { worstStatus } from "@/lib/health/health-report";

describe("worstStatus", () => {
  it.each([
    [[], "ok"],
    [["ok", "ok"], "ok"],
    [["ok", "degraded"], "degraded"],
    [["degraded", "down", "ok"], "down"],
    [["down", "degraded"], "down"],
  ] as const)("%j -> %s", (statuses, expected) => {
    expect(worstStatus([...statuses])).toBe(expected);
  });
});
