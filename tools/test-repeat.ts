// `npm run test:repeat -- <target...> [--times N] [--load K]`: runs tests again and again, on a
// loaded machine if asked, and reports each test that failed at least once, how often, and with
// which errors. A target is a project (unit, integration, e2e) or a test file. It sets up what
// `npm test` does (Chromium for e2e, a throwaway PostgreSQL, a Pulsar broker) once for all
// repetitions. --load K keeps K CPU-bound processes spinning beside the tests, as a busy CI
// machine would. Exits non-zero when any test failed once.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import { ensureChromium } from "@/tests/support/ensure-chromium";
import { readPlaywrightOutcomes, readVitestOutcomes } from "@/tests/support/read-test-reports";
import { readPlan, type Plan } from "@/tests/support/repeat-plan";
import { formatTallies, tallyOutcomes, type TestTally } from "@/tests/support/repeat-tally";
import { PLAYWRIGHT_REPORT, runPlaywright } from "@/tests/support/run-playwright";
import { runVitest } from "@/tests/support/run-vitest";
import { STOPPED_EXIT_CODE, stopOnSignals } from "@/tests/support/stop-on-signals";
import { startTestServers } from "@/tests/support/test-servers";

const root = process.cwd();
const reportsDir = path.join(root, "test-results", "repeat");
const log = (line: string) => console.log(`[repeat] ${line}`);
const cleanups: (() => Promise<void>)[] = [];
const running = new Set<ChildProcess>();

function track(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
}

/** K processes that keep a core busy each until they are killed. */
function startLoad(count: number): void {
  for (let i = 0; i < count; i += 1) track(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
}

async function cleanUp(): Promise<void> {
  for (const child of running) child.kill("SIGTERM");
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error: unknown) => console.error(`[repeat] cleanup failed: ${(error as Error).message}`));
  }
}

const isStopping = stopOnSignals(log, cleanUp);

async function repeatOnce(plan: Plan, env: NodeJS.ProcessEnv, round: number, tallies: Map<string, TestTally>): Promise<void> {
  const vitestRuns = [
    ...(plan.vitestProjects.length > 0 ? [{ projects: plan.vitestProjects, files: [] }] : []),
    ...(plan.vitestFiles.length > 0 ? [{ projects: [], files: plan.vitestFiles }] : []),
  ];
  for (const [index, selection] of vitestRuns.entries()) {
    if (isStopping()) return;
    const reportFile = path.join(reportsDir, `vitest-${round}-${index}.json`);
    await runVitest({ root, env, reportFile, ...selection, onSpawn: track });
    tallyOutcomes(tallies, readVitestOutcomes(reportFile, root));
  }
  if ((plan.e2e || plan.e2eFiles.length > 0) && !isStopping()) {
    await runPlaywright({ root, env, log, files: plan.e2e ? [] : plan.e2eFiles, onSpawn: track });
    tallyOutcomes(tallies, readPlaywrightOutcomes(path.join(root, PLAYWRIGHT_REPORT)));
  }
}

async function main(): Promise<number> {
  const plan = readPlan(process.argv.slice(2));
  mkdirSync(reportsDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (plan.e2e || plan.e2eFiles.length > 0) env.BATON_CHROMIUM = ensureChromium(log);
  await startTestServers(env, log, cleanups);
  if (isStopping()) return STOPPED_EXIT_CODE;
  if (plan.load > 0) log(`loading the machine with ${plan.load} CPU-bound process(es)`);
  startLoad(plan.load);

  const tallies = new Map<string, TestTally>();
  const startedAt = Date.now();
  for (let round = 1; round <= plan.times; round += 1) {
    if (isStopping()) return STOPPED_EXIT_CODE;
    log(`repetition ${round} of ${plan.times}`);
    await repeatOnce(plan, env, round, tallies);
    if (isStopping()) return STOPPED_EXIT_CODE;
    // The tallies so far, after each repetition: a long run that is stopped early still said what it found.
    const soFar = formatTallies(tallies.values(), round);
    log(`after repetition ${round} (${((Date.now() - startedAt) / 60_000).toFixed(1)} min): ${soFar.slice(0, -1).join("\n")}`);
    writeFileSync(path.join(reportsDir, "repeat-report.json"), JSON.stringify({ plan, repetitions: round, tallies: [...tallies.values()] }, null, 2));
  }
  const lines = formatTallies(tallies.values(), plan.times);
  console.log(`\n${lines.join("\n")}`);
  return lines[lines.length - 1]!.endsWith(" 0 failed") ? 0 : 1;
}

main()
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    console.error(`test:repeat cannot run: ${(error as Error).message}`);
    await cleanUp();
    process.exit(2);
  });
