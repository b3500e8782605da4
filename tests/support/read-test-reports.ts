import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** A run's counts, and a line per failure naming the file and the test, so a log's tail says what failed. */
export type TestCounts = { passed: number; failed: number; skipped: number; failures: string[] };

export const NO_TESTS: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };

export function addCounts(a: TestCounts, b: TestCounts): TestCounts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped, failures: [...a.failures, ...b.failures] };
}

/** A run that broke before it reported: one failure, named. */
export function brokenRun(what: string): TestCounts {
  return { ...NO_TESTS, failed: 1, failures: [what] };
}

type VitestReport = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  success: boolean;
  testResults?: { name: string; status: string; message?: string; assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[] }[];
};

// Playwright colours its messages; a summary line is read in plain text.
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;
/** What an expectation's message says in its own labelled lines ("Expected: ...", "Received: ...", "Locator: ..."). */
const DETAIL_LINE = /^(Locator|Expected|Received|Expected pattern|Expected string|Received string|Timeout): /;

/**
 * An error in one line: its first line, then the expectation's labelled lines, so that a log's
 * failure line says what was expected and what came ("toHaveText failed" alone does not).
 */
const firstLine = (text: string | undefined) => {
  const lines = (text ?? "").replace(ANSI_ESCAPE, "").trim().split("\n");
  const details = lines
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => DETAIL_LINE.test(line))
    .slice(0, 4);
  return [lines[0]!.slice(0, 300), ...details.map((line) => line.replace(/\s+/g, " ").slice(0, 300))].join(" · ");
};

/** The same counts with each failure marked as the named pass's, e.g. "(clock +400d) a.test.ts > ...". */
export function markFailures(counts: TestCounts, pass: string): TestCounts {
  return { ...counts, failures: counts.failures.map((failure) => `(${pass}) ${failure}`) };
}

/** The lines a log ends with when something failed: each failure by name (empty when none did). */
export function formatFailures(failures: string[]): string {
  return failures.length === 0 ? "" : `\nfailed:\n${failures.map((failure) => `  ${failure}`).join("\n")}`;
}

/** Counts from vitest's JSON reporter; a missing report counts as one failure (the run broke). */
export function readVitestCounts(file: string, root = process.cwd()): TestCounts {
  if (!existsSync(file)) return brokenRun(`vitest wrote no report (${path.relative(root, file)}): the run broke, see above`);
  const report = JSON.parse(readFileSync(file, "utf8")) as VitestReport;
  const failures: string[] = [];
  for (const suite of report.testResults ?? []) {
    const where = path.relative(root, suite.name);
    const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failedTests) failures.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (suite.status === "failed" && failedTests.length === 0) failures.push(`${where}: ${firstLine(suite.message) || "the file failed to run"}`);
  }
  // A suite that failed to load has no failed tests but is not a success.
  const brokenSuites = report.success || report.numFailedTests > 0 ? 0 : 1;
  if (brokenSuites > 0 && failures.length === 0) failures.push("vitest reported no success and no failed test: a file failed to load, see above");
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenSuites, skipped: report.numPendingTests + report.numTodoTests, failures };
}

type PlaywrightSuite = {
  file?: string;
  title: string;
  suites?: PlaywrightSuite[];
  specs?: { title: string; file: string; tests: { status: string; results: { error?: { message?: string } }[] }[] }[];
};
type PlaywrightReport = {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  errors?: { message?: string }[];
  suites?: PlaywrightSuite[];
};

function unexpectedSpecs(suites: PlaywrightSuite[], titles: string[], into: string[]): void {
  for (const suite of suites) {
    const titlePath = suite.file === suite.title ? titles : [...titles, suite.title];
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        if (test.status !== "unexpected") continue;
        const error = test.results.map((result) => result.error?.message).find(Boolean);
        into.push(`${spec.file} > ${[...titlePath, spec.title].join(" > ")}: ${firstLine(error)}`);
      }
    }
    unexpectedSpecs(suite.suites ?? [], titlePath, into);
  }
}

/** Counts from Playwright's JSON reporter. */
export function readPlaywrightCounts(file: string): TestCounts {
  if (!existsSync(file)) return brokenRun(`Playwright wrote no report (${file}): the run broke, see above`);
  const report = JSON.parse(readFileSync(file, "utf8")) as PlaywrightReport;
  const failures: string[] = [];
  unexpectedSpecs(report.suites ?? [], [], failures);
  const globalErrors = report.errors?.length ?? 0;
  for (const error of report.errors ?? []) failures.push(`Playwright: ${firstLine(error.message)}`);
  return {
    passed: report.stats.expected + report.stats.flaky,
    failed: report.stats.unexpected + (globalErrors > 0 && report.stats.unexpected === 0 ? 1 : 0),
    skipped: report.stats.skipped,
    failures,
  };
}

/** One test's result in one run: its name (file > title path), whether it passed, and the first line of its error. */
export type TestOutcome = { test: string; passed: boolean; error?: string };

/** Every test's outcome in a vitest JSON report (skipped tests left out; a file that failed to load is one failed outcome). */
export function readVitestOutcomes(file: string, root = process.cwd()): TestOutcome[] {
  if (!existsSync(file)) return [{ test: `vitest (${path.relative(root, file)})`, passed: false, error: "vitest wrote no report: the run broke" }];
  const report = JSON.parse(readFileSync(file, "utf8")) as VitestReport;
  const outcomes: TestOutcome[] = [];
  for (const suite of report.testResults ?? []) {
    const where = path.relative(root, suite.name);
    const ran = (suite.assertionResults ?? []).filter((test) => test.status === "passed" || test.status === "failed");
    for (const test of ran) {
      const passed = test.status === "passed";
      outcomes.push({ test: `${where} > ${test.fullName}`, passed, ...(passed ? {} : { error: firstLine(test.failureMessages?.[0]) }) });
    }
    if (suite.status === "failed" && !ran.some((test) => test.status === "failed")) {
      outcomes.push({ test: where, passed: false, error: firstLine(suite.message) || "the file failed to run" });
    }
  }
  return outcomes;
}

function specOutcomes(suites: PlaywrightSuite[], titles: string[], into: TestOutcome[]): void {
  for (const suite of suites) {
    const titlePath = suite.file === suite.title ? titles : [...titles, suite.title];
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        if (test.status === "skipped") continue;
        const passed = test.status === "expected";
        const error = test.results.map((result) => result.error?.message).find(Boolean);
        into.push({ test: `${spec.file} > ${[...titlePath, spec.title].join(" > ")}`, passed, ...(passed ? {} : { error: firstLine(error) }) });
      }
    }
    specOutcomes(suite.suites ?? [], titlePath, into);
  }
}

/** Every test's outcome in a Playwright JSON report; a run-level error is one failed outcome. */
export function readPlaywrightOutcomes(file: string): TestOutcome[] {
  if (!existsSync(file)) return [{ test: `Playwright (${file})`, passed: false, error: "Playwright wrote no report: the run broke" }];
  const report = JSON.parse(readFileSync(file, "utf8")) as PlaywrightReport;
  const outcomes: TestOutcome[] = [];
  specOutcomes(report.suites ?? [], [], outcomes);
  for (const error of report.errors ?? []) outcomes.push({ test: "Playwright (run)", passed: false, error: firstLine(error.message) });
  return outcomes;
}

/**
 * How long each top folder's test files ran in a vitest report (tests/unit, tests/integration):
 * from the first file's start to the last file's end, so files run side by side count once.
 */
export function readVitestSpans(file: string, root = process.cwd()): Record<string, number> {
  if (!existsSync(file)) return {};
  const report = JSON.parse(readFileSync(file, "utf8")) as { testResults?: { name: string; startTime?: number; endTime?: number }[] };
  const bounds = new Map<string, { start: number; end: number }>();
  for (const suite of report.testResults ?? []) {
    if (suite.startTime === undefined || suite.endTime === undefined) continue;
    const folder = path.relative(root, suite.name).split(path.sep).slice(0, 2).join("/");
    const known = bounds.get(folder);
    bounds.set(folder, { start: Math.min(known?.start ?? suite.startTime, suite.startTime), end: Math.max(known?.end ?? suite.endTime, suite.endTime) });
  }
  return Object.fromEntries([...bounds].map(([folder, { start, end }]) => [folder, end - start]));
}
