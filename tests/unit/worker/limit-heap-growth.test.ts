import { execFileSync } from "node:child_process";

import { describe, expect, it } from "vitest";

import { limitHeapGrowth } from "@/lib/worker/limit-heap-growth";

function peakHeapMb(mode: "limit" | "default"): number {
  const out = execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "tests/unit/worker/heap-churn-child.ts", mode], {
    encoding: "utf8",
  });
  return (JSON.parse(out.trim().split("\n").at(-1)!) as { peakHeapMb: number }).peakHeapMb;
}

describe("the worker's heap growth", () => {
  it("keeps a churning heap far smaller than V8's default growth does, in a real V8", () => {
    const unlimited = peakHeapMb("default");
    const limited = peakHeapMb("limit");
    // Measured 470-495 MB against 220 MB; a growth rule, so the live set (over 60 MB) still fits.
    expect(limited).toBeLessThan(unlimited * 0.7);
    expect(limited).toBeGreaterThan(60);
  }, 60_000);

  it("leaves a growth chosen on the node command line alone", () => {
    expect(limitHeapGrowth(["--conditions=react-server", "--heap-growing-percent=20"])).toBe(false);
  });
});
