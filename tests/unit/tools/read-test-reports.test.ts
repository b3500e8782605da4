import path from "node:path";
import { describe, expect, it } from "vitest";

import { addCounts, brokenRun, formatFailures, markFailures, NO_TESTS, readPlaywrightCounts, readVitestCounts } from "@/tests/support/read-test-reports";

// Both reports were written by the real reporters (vitest 4 and Playwright) for a scratch run in
// /work/main: a passing, a failing and a skipped test, a file that failed to load, and a
// Playwright test failing inside a describe block and one outside.
const fixtures = path.join(__dirname, "fixtures");

describe("readVitestCounts", () => {
  it("counts, and names each failed test and the file that failed to load, with the first line of its error", () => {
    const counts = readVitestCounts(path.join(fixtures, "vitest-report.json"), "/work/main");
    expect(counts).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [
        "tests/unit/zz-tmp/broken.test.ts: Cannot find module './does-not-exist' imported from /work/main/tests/unit/zz-tmp/broken.test.ts",
        "tests/unit/zz-tmp/sample.test.ts > a board shows the leader: AssertionError: expected 'pod-a' to be 'pod-b' // Object.is equality",
      ],
    });
  });

  it("counts a run that wrote no report as one failure, and says so", () => {
    const counts = readVitestCounts(path.join(fixtures, "no-such-report.json"), fixtures);
    expect(counts.failed).toBe(1);
    expect(counts.failures).toEqual(["vitest wrote no report (no-such-report.json): the run broke, see above"]);
  });
});

describe("readPlaywrightCounts", () => {
  it("counts, and names each unexpected test with its describe blocks, its error's first line and what it expected and received, without colours", () => {
    const counts = readPlaywrightCounts(path.join(fixtures, "playwright-report.json"));
    expect(counts.passed).toBe(1);
    expect(counts.failed).toBe(2);
    expect(counts.failures).toEqual([
      "board.spec.ts > top-level failure: Error: boom",
      `board.spec.ts > the board > shows the leader: Error: expect(received).toBe(expected) // Object.is equality · Expected: "pod-b" · Received: "pod-a"`,
    ]);
  });
});

describe("formatFailures, addCounts and markFailures", () => {
  it("keeps every failure of both runs, in order, one indented line each, and prints nothing when none failed", () => {
    const total = addCounts(brokenRun("browser tests: the build failed"), { passed: 3, failed: 1, skipped: 0, failures: ["a.test.ts > x: boom"] });
    expect(total).toEqual({ passed: 3, failed: 2, skipped: 0, failures: ["browser tests: the build failed", "a.test.ts > x: boom"] });
    expect(formatFailures(total.failures)).toBe("\nfailed:\n  browser tests: the build failed\n  a.test.ts > x: boom");
    expect(formatFailures(NO_TESTS.failures)).toBe("");
  });

  it("marks a pass's failures with its name, counts untouched", () => {
    expect(markFailures({ passed: 2, failed: 1, skipped: 0, failures: ["a.test.ts > x: boom"] }, "clock +400d")).toEqual({
      passed: 2,
      failed: 1,
      skipped: 0,
      failures: ["(clock +400d) a.test.ts > x: boom"],
    });
  });
});
