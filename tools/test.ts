// `npm test`: every test of Baton against real parts. Sets up what the tests need (Chromium,
// a throwaway PostgreSQL, a real Pulsar broker), runs unit and integration tests (vitest) and
// browser tests (Playwright), then the unit and integration tests once more with the clock moved
// 400 days ahead (faketime), prints one summary line and exits non-zero on any failure.
// Everything it starts is stopped, also on failure and on Ctrl-C.
import type { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";

import { ensureChromium } from "@/tests/support/ensure-chromium";
import { ensureFaketime } from "@/tests/support/ensure-faketime";
import { addCounts, brokenRun, formatFailures, markFailures, readPlaywrightCounts, readVitestSpans, type TestCounts } from "@/tests/support/read-test-reports";
import { CLOCK_PASS_EXCLUDES } from "@/tests/support/clock-pass";
import { CLOCK_OFFSET, runVitest, withoutSharedServers } from "@/tests/support/run-vitest";
import { PLAYWRIGHT_REPORT, runPlaywright } from "@/tests/support/run-playwright";
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

/** Adds to the last part noted how long each test folder's files ran in its vitest report. */
function noteFolderSpans(reportFile: string): void {
  const spans = Object.entries(readVitestSpans(reportFile, root)).map(([folder, ms]) => `${folder.replace("tests/", "")} ${minutes(ms)}`);
  if (spans.length > 0 && costs.length > 0) costs[costs.length - 1] += ` (${spans.join(", ")})`;
}

/** The last lines of the log: what each part cost, what failed by name, then the counts (a CI log is often read from its tail). */
function printSummary(counts: TestCounts): void {
  console.log(`\ntime:\n${costs.map((cost) => `  ${cost}`).join("\n")}`);
  if (counts.failures.length > 0) console.log(formatFailures(counts.failures));
  console.log(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}

async function main(): Promise<number> {
  rmSync(reportsDir, { recursive: true, force: true });
  const chromium = ensureChromium(log);
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_CHROMIUM: chromium, NEXT_TELEMETRY_DISABLED: "1" };

  const startedAt = Date.now();
  await timed("setup", () => startTestServers(env, log, cleanups));

  log("unit and integration tests (vitest)");
  const vitestReport = path.join(reportsDir, "vitest-report.json");
  let counts = await timed("unit and integration", () => runVitest({ root, env, reportFile: vitestReport, onSpawn: track }));
  noteFolderSpans(vitestReport);

  log("browser tests (Playwright, Chromium)");
  try {
    await timed("browser tests (with the build when stale)", () => runPlaywright({ root, env, log, onSpawn: track }));
    counts = addCounts(counts, readPlaywrightCounts(path.join(root, PLAYWRIGHT_REPORT)));
  } catch (error) {
    // The build type-checks every file, tests included: its failure is a failed run, not a crash.
    console.error(`[test] ${(error as Error).message}`);
    counts = addCounts(counts, brokenRun(`browser tests: ${(error as Error).message.split("\n")[0]}`));
  }
  const clockOffset = env[CLOCK_OFFSET_ENV] ?? DEFAULT_CLOCK_OFFSET;
  if (clockOffset !== "off") {
    if (!CLOCK_OFFSET.test(clockOffset)) throw new Error(`${CLOCK_OFFSET_ENV} must be a clock offset such as +400d, or off (got "${clockOffset}")`);
    log(
      `unit and integration tests again with the clock moved ${clockOffset} (faketime; ${CLOCK_OFFSET_ENV}=off skips; npm run test:clock also runs the ${CLOCK_PASS_EXCLUDES.length} folders and files this pass leaves out)`,
    );
    const clockReport = path.join(reportsDir, "vitest-clock-report.json");
    const clockCounts = await timed(`clock pass ${clockOffset}`, () =>
      runVitest({
        root,
        env: withoutSharedServers(env),
        reportFile: clockReport,
        projects: ["unit", "integration"],
        excludes: CLOCK_PASS_EXCLUDES.map((exclude) => exclude.glob),
        clockOffset: { faketime: ensureFaketime(log), offset: clockOffset },
        onSpawn: track,
      }),
    );
    noteFolderSpans(clockReport);
    log(`clock ${clockOffset}: ${clockCounts.passed} passed, ${clockCounts.failed} failed, ${clockCounts.skipped} skipped`);
    counts = addCounts(counts, markFailures(clockCounts, `clock ${clockOffset}`));
  }
  costs.push(`total ${minutes(Date.now() - startedAt)}`);
  printSummary(counts);
  return counts.failed > 0 || counts.passed === 0 ? 1 : 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping everything the tests started`);
    void cleanUp().then(() => process.exit(130));
  });
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
