// `npm test`: every test of Baton against real parts. Sets up what the tests need (Chromium,
// a throwaway PostgreSQL, a real Pulsar broker), runs unit and integration tests (vitest) and
// browser tests (Playwright) and, beside them, the unit and integration tests once more with the
// clock moved 400 days ahead (faketime); prints what each part cost, the failures by name and one
// summary line, and exits non-zero on any failure.
// Everything it starts is stopped, also on failure and on Ctrl-C.
import type { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";

import { ensureChromium } from "@/tests/support/ensure-chromium";
import { ensureFaketime } from "@/tests/support/ensure-faketime";
import {
  addCounts,
  brokenRun,
  formatFailures,
  markFailures,
  NO_TESTS,
  readPlaywrightCounts,
  readVitestSpans,
  type TestCounts,
} from "@/tests/support/read-test-reports";
import { CLOCK_PASS_EXCLUDES } from "@/tests/support/clock-pass";
import { CLOCK_OFFSET, runVitest, withoutSharedServers } from "@/tests/support/run-vitest";
import { PLAYWRIGHT_REPORT, runPlaywright } from "@/tests/support/run-playwright";
import { STOPPED_EXIT_CODE, stopOnSignals } from "@/tests/support/stop-on-signals";
import { startTestServers } from "@/tests/support/test-servers";

const root = process.cwd();
const reportsDir = path.join(root, "test-results");
const log = (line: string) => console.log(`[test] ${line}`);
const cleanups: (() => Promise<void>)[] = [];
const running = new Set<ReturnType<typeof spawn>>();

/** The +400 days pass is the one most likely to find a test bound to the calendar. */
const DEFAULT_CLOCK_OFFSET = "+400d";
const CLOCK_OFFSET_ENV = "BATON_TEST_CLOCK_OFFSET";

function track(child: ReturnType<typeof spawn>): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
}

async function cleanUp(): Promise<void> {
  for (const child of running) child.kill("SIGTERM");
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error: unknown) => console.error(`[test] cleanup failed: ${(error as Error).message}`));
  }
}

const isStopping = stopOnSignals(log, cleanUp);

/** What each part of the run cost, in the order it ran: kept under CI's budget, so it is printed every time. */
const costs: string[] = [];
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

/** Runs one part of the run and notes its wall time. */
async function timed<T>(part: string, run: () => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  try {
    return await run();
  } finally {
    costs.push(`${part} ${minutes(Date.now() - startedAt)}`);
  }
}

/** Adds to the named part's cost how long each test folder's files ran in its vitest report. */
function noteFolderSpans(part: string, reportFile: string): void {
  const spans = Object.entries(readVitestSpans(reportFile, root)).map(([folder, ms]) => `${folder.replace("tests/", "")} ${minutes(ms)}`);
  const index = costs.findIndex((cost) => cost.startsWith(`${part} `));
  if (spans.length > 0 && index >= 0) costs[index] += ` (${spans.join(", ")})`;
}

/** The last lines of the log: what each part cost, what failed by name, then the counts (a CI log is often read from its tail). */
function printSummary(counts: TestCounts): void {
  console.log(`\ntime:\n${costs.map((cost) => `  ${cost}`).join("\n")}`);
  if (counts.failures.length > 0) console.log(formatFailures(counts.failures));
  console.log(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}

/** The clock pass's offset (BATON_TEST_CLOCK_OFFSET, "off" skips it), checked before anything starts. */
function readClockOffset(): string {
  const offset = process.env[CLOCK_OFFSET_ENV] ?? DEFAULT_CLOCK_OFFSET;
  if (offset !== "off" && !CLOCK_OFFSET.test(offset)) throw new Error(`${CLOCK_OFFSET_ENV} must be a clock offset such as +400d, or off (got "${offset}")`);
  return offset;
}

/** The Playwright tests, with the production build when it is stale; a build that fails is a failed run. */
async function runBrowserTests(env: NodeJS.ProcessEnv): Promise<TestCounts> {
  log("browser tests (Playwright, Chromium)");
  try {
    await timed("browser tests (with the build when stale)", () => runPlaywright({ root, env, log, onSpawn: track }));
    return readPlaywrightCounts(path.join(root, PLAYWRIGHT_REPORT));
  } catch (error) {
    // The build type-checks every file, tests included: its failure is a failed run, not a crash.
    console.error(`[test] ${(error as Error).message}`);
    return brokenRun(`browser tests: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** The unit and integration tests again with the clock moved (faketime), on servers of their own; its output goes to a file. */
async function runClockPass(env: NodeJS.ProcessEnv, clockOffset: string): Promise<TestCounts> {
  if (clockOffset === "off") return NO_TESTS;
  const logFile = path.join(reportsDir, "vitest-clock.log");
  log(
    `beside them, the unit and integration tests again with the clock moved ${clockOffset} (faketime; output in ${path.relative(root, logFile)}; ${CLOCK_OFFSET_ENV}=off skips; npm run test:clock also runs the ${CLOCK_PASS_EXCLUDES.length} folders and files this pass leaves out)`,
  );
  const clockReport = path.join(reportsDir, "vitest-clock-report.json");
  const part = `clock pass ${clockOffset}, beside the browser tests`;
  const clockCounts = await timed(part, () =>
    runVitest({
      root,
      env: withoutSharedServers(env),
      reportFile: clockReport,
      logFile,
      projects: ["unit", "integration"],
      excludes: CLOCK_PASS_EXCLUDES.map((exclude) => exclude.glob),
      clockOffset: { faketime: ensureFaketime(log), offset: clockOffset },
      onSpawn: track,
    }),
  );
  noteFolderSpans(part, clockReport);
  log(`clock ${clockOffset}: ${clockCounts.passed} passed, ${clockCounts.failed} failed, ${clockCounts.skipped} skipped`);
  if (clockCounts.failed > 0) console.log(`[test] the clock pass's output ends (whole in ${path.relative(root, logFile)}):\n${tailOf(logFile, 60)}`);
  return markFailures(clockCounts, `clock ${clockOffset}`);
}

/** A file's last lines. */
function tailOf(file: string, lines: number): string {
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

async function main(): Promise<number> {
  rmSync(reportsDir, { recursive: true, force: true });
  const clockOffset = readClockOffset();
  const chromium = ensureChromium(log);
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_CHROMIUM: chromium, NEXT_TELEMETRY_DISABLED: "1" };

  const startedAt = Date.now();
  await timed("setup", () => startTestServers(env, log, cleanups));
  if (isStopping()) return STOPPED_EXIT_CODE;

  log("unit and integration tests (vitest)");
  const vitestReport = path.join(reportsDir, "vitest-report.json");
  let counts = await timed("unit and integration", () => runVitest({ root, env, reportFile: vitestReport, onSpawn: track }));
  noteFolderSpans("unit and integration", vitestReport);
  if (isStopping()) return STOPPED_EXIT_CODE;

  // The browser tests and the clock pass run side by side: both spend most of their time waiting
  // on real servers (polls, expiries, a broker's elections), and one after the other they cost
  // CI 24 of its 39 minutes. The clock pass writes its output to a file; its failures are named below.
  const [browserCounts, clockCounts] = await Promise.all([runBrowserTests(env), runClockPass(env, clockOffset)]);
  counts = addCounts(addCounts(counts, browserCounts), clockCounts);
  costs.push(`total ${minutes(Date.now() - startedAt)}`);
  printSummary(counts);
  return counts.failed > 0 || counts.passed === 0 ? 1 : 0;
}

main()
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    console.error(`npm test cannot run: ${(error as Error).message}`);
    await cleanUp();
    process.exit(1);
  });
