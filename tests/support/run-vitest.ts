import { spawn } from "node:child_process";
import { closeSync, openSync, rmSync } from "node:fs";
import path from "node:path";

import { readVitestCounts, type TestCounts } from "@/tests/support/read-test-reports";
import { TEST_PULSAR_ADMIN_URL_ENV, TEST_PULSAR_WS_URL_ENV } from "@/tests/support/pulsar";
import { TEST_DATABASE_ENV } from "@/tests/support/test-database";

/** A clock offset as faketime reads it: "+400d", "-2h", "+90m". */
export const CLOCK_OFFSET = /^[+-]\d+[smhdy]$/;

export type VitestRun = {
  root: string;
  env: NodeJS.ProcessEnv;
  reportFile: string;
  projects?: string[];
  /** Only these test files (paths or vitest filters); every file of the projects when absent. */
  files?: string[];
  /** Test files left out (globs, as vitest's --exclude takes them). */
  excludes?: readonly string[];
  /** Runs the whole process tree (vitest, PostgreSQL, the broker) with its clock moved by this offset. */
  clockOffset?: { faketime: string; offset: string };
  /** Writes vitest's output to this file instead of the terminal (a run beside another one). */
  logFile?: string;
  /** Lets the caller stop the run (Ctrl-C). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
};

/** Runs vitest with a JSON report and answers its counts (a run that broke counts as a failure). */
export function runVitest(run: VitestRun): Promise<TestCounts> {
  const vitest = [
    path.join(run.root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${run.reportFile}`,
  ];
  for (const project of run.projects ?? []) vitest.push("--project", project);
  for (const glob of run.excludes ?? []) vitest.push("--exclude", glob);
  vitest.push(...(run.files ?? []));
  const [command, args] = run.clockOffset
    ? [run.clockOffset.faketime, ["-f", run.clockOffset.offset, process.execPath, ...vitest]]
    : [process.execPath, vitest];
  rmSync(run.reportFile, { force: true });
  const output = run.logFile === undefined ? null : openSync(run.logFile, "w");
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: run.root, env: run.env, stdio: output === null ? "inherit" : ["ignore", output, output] });
    run.onSpawn?.(child);
    child.once("exit", () => {
      if (output !== null) closeSync(output);
      resolve(readVitestCounts(run.reportFile));
    });
  });
}

/**
 * The environment for a run under a moved clock: without the database and broker that were
 * started under the real clock, so the integration project's global setup starts its own under
 * the moved one.
 */
export function withoutSharedServers(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [TEST_DATABASE_ENV]: _db, [TEST_PULSAR_ADMIN_URL_ENV]: _admin, [TEST_PULSAR_WS_URL_ENV]: _ws, ...rest } = env;
  return rest;
}
