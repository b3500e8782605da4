import path from "node:path";
import { describe, expect, it } from "vitest";

import { readPlaywrightOutcomes, readVitestOutcomes, readVitestSpans } from "@/tests/support/read-test-reports";
import { readPlan } from "@/tests/support/repeat-plan";
import { formatTallies, tallyOutcomes, type TestTally } from "@/tests/support/repeat-tally";

// The same real reports as read-test-reports.test.ts reads.
const fixtures = path.join(__dirname, "fixtures");

describe("readVitestOutcomes", () => {
  it("gives each test that ran its outcome, and a file that failed to load as one failed outcome; skipped tests are left out", () => {
    const outcomes = readVitestOutcomes(path.join(fixtures, "vitest-report.json"), "/work/main");
    expect(outcomes.map((outcome) => [outcome.test, outcome.passed])).toEqual(
      expect.arrayContaining([
        ["tests/unit/zz-tmp/broken.test.ts", false],
        ["tests/unit/zz-tmp/sample.test.ts > a board shows the leader", false],
      ]),
    );
    expect(outcomes.filter((outcome) => outcome.passed)).toHaveLength(1);
    expect(outcomes).toHaveLength(3);
    expect(outcomes.find((outcome) => !outcome.passed && outcome.test.endsWith("leader"))?.error).toMatch(/expected 'pod-a' to be 'pod-b'/);
  });

  it("reads a missing report as one failed outcome", () => {
    expect(readVitestOutcomes(path.join(fixtures, "no-such-report.json"), fixtures)).toEqual([
      { test: "vitest (no-such-report.json)", passed: false, error: "vitest wrote no report: the run broke" },
    ]);
  });
});

describe("readPlaywrightOutcomes", () => {
  it("gives the failed tests with their title path and error, and the passed ones", () => {
    const outcomes = readPlaywrightOutcomes(path.join(fixtures, "playwright-report.json"));
    const failed = outcomes.filter((outcome) => !outcome.passed);
    expect(failed.length).toBeGreaterThan(0);
    for (const outcome of failed) expect(outcome.error).toBeTruthy();
    expect(outcomes.some((outcome) => outcome.passed)).toBe(true);
  });
});

describe("tallyOutcomes and formatTallies", () => {
  it("counts runs and failures per test over repetitions, keeps each distinct error once, and lists the most failing first", () => {
    const tallies = new Map<string, TestTally>();
    tallyOutcomes(tallies, [
      { test: "a.test.ts > steady", passed: true },
      { test: "b.test.ts > racy", passed: false, error: "expected 'none' to be 'watch'" },
      { test: "c.test.ts > rare", passed: true },
    ]);
    tallyOutcomes(tallies, [
      { test: "a.test.ts > steady", passed: true },
      { test: "b.test.ts > racy", passed: false, error: "expected 'none' to be 'watch'" },
      { test: "c.test.ts > rare", passed: false, error: "timed out" },
    ]);
    expect(tallies.get("b.test.ts > racy")).toEqual({ test: "b.test.ts > racy", runs: 2, failures: 2, errors: ["expected 'none' to be 'watch'"] });
    expect(formatTallies(tallies.values(), 2)).toEqual([
      "3 tests, 2 repetitions: 2 failed at least once",
      "  failed 2 of 2: b.test.ts > racy",
      "      expected 'none' to be 'watch'",
      "  failed 1 of 2: c.test.ts > rare",
      "      timed out",
      "repeat: 3 passed, 3 failed",
    ]);
  });

  it("says so when nothing failed", () => {
    const tallies = new Map<string, TestTally>();
    tallyOutcomes(tallies, [{ test: "a.test.ts > steady", passed: true }]);
    expect(formatTallies(tallies.values(), 1)).toEqual(["1 tests, 1 repetitions: none failed", "repeat: 1 passed, 0 failed"]);
  });
});

describe("readPlan", () => {
  it("sorts targets into vitest projects, vitest files and browser specs, with the counts", () => {
    expect(readPlan(["integration", "tests/unit/a.test.ts", "tests/e2e/locks.spec.ts", "--times", "5", "--load", "2"])).toEqual({
      vitestProjects: ["integration"],
      vitestFiles: ["tests/unit/a.test.ts"],
      e2e: false,
      e2eFiles: ["tests/e2e/locks.spec.ts"],
      times: 5,
      load: 2,
    });
    expect(readPlan(["e2e"])).toMatchObject({ e2e: true, times: 3, load: 0 });
  });

  it.each([
    [[], /name at least one target/],
    [["unit", "--times", "0"], /--times must be a whole number of at least 1 \(got "0"\)/],
    [["unit", "--load"], /--load must be a whole number of at least 0 \(got ""\)/],
    [["unit", "--fast"], /unknown option --fast/],
    [["lib/poller"], /"lib\/poller" is neither a project/],
  ])("refuses %j with a line naming what is wrong", (args, message) => {
    expect(() => readPlan(args)).toThrow(message);
  });
});

describe("readVitestSpans", () => {
  it("gives each test folder the time from its first file's start to its last file's end", () => {
    // broken.test.ts started and ended at ...531597, sample.test.ts ran from ...531861 to ...531866.36.
    const spans = readVitestSpans(path.join(fixtures, "vitest-report.json"), "/work/main");
    expect(Object.keys(spans)).toEqual(["tests/unit"]);
    expect(spans["tests/unit"]).toBeCloseTo(269.36, 2);
  });

  it("gives nothing for a missing report", () => {
    expect(readVitestSpans(path.join(fixtures, "no-such-report.json"))).toEqual({});
  });
});
