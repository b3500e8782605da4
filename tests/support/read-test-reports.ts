import { existsSync, readFileSync } from "node:fs";

export type TestCounts = { passed: number; failed: number; skipped: number };

const NONE: TestCounts = { passed: 0, failed: 0, skipped: 0 };

export function addCounts(a: TestCounts, b: TestCounts): TestCounts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}

/** Counts from vitest's JSON reporter; a missing report counts as one failure (the run broke). */
export function readVitestCounts(file: string): TestCounts {
  if (!existsSync(file)) return { ...NONE, failed: 1 };
  const report = JSON.parse(readFileSync(file, "utf8")) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; success: boolean };
  // A suite that failed to load has no failed tests but is not a success.
  const brokenSuites = report.success || report.numFailedTests > 0 ? 0 : 1;
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenSuites, skipped: report.numPendingTests + report.numTodoTests };
}

/** Counts from Playwright's JSON reporter. */
export function readPlaywrightCounts(file: string): TestCounts {
  if (!existsSync(file)) return { ...NONE, failed: 1 };
  const report = JSON.parse(readFileSync(file, "utf8")) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number }; errors?: unknown[] };
  const globalErrors = report.errors?.length ?? 0;
  return { passed: report.stats.expected + report.stats.flaky, failed: report.stats.unexpected + (globalErrors > 0 && report.stats.unexpected === 0 ? 1 : 0), skipped: report.stats.skipped };
}
