import { spawn } from "node:child_process";
import path from "node:path";

import { ensureNextBuild } from "@/lib/launcher/ensure-next-build";
import { applyMigrations } from "@/lib/db/migrate";
import { createScratchDatabase, TEST_DATABASE_ENV } from "@/tests/support/test-database";

/** Where playwright.config.ts has Playwright write its JSON report. */
export const PLAYWRIGHT_REPORT = path.join("test-results", "e2e-report.json");

export type PlaywrightRun = {
  root: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Only these spec files; every spec when absent. */
  files?: string[];
  /** Lets the caller stop the run (Ctrl-C). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
};

/**
 * Runs the browser tests against a database of their own (what the integration tests wrote must
 * not fill the pages they expect empty) and a current production build; the database is dropped
 * afterwards. Resolves when Playwright has exited; its report is at PLAYWRIGHT_REPORT.
 */
export async function runPlaywright(run: PlaywrightRun): Promise<void> {
  const database = await createScratchDatabase(run.env[TEST_DATABASE_ENV]!, "baton_e2e");
  try {
    await applyMigrations(database.url);
    ensureNextBuild(run.root, run.log, run.env.BATON_NEXT_DIST_DIR || ".next");
    const cli = path.join(run.root, "node_modules", "@playwright", "test", "cli.js");
    await new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [cli, "test", ...(run.files ?? [])], {
        cwd: run.root,
        env: { ...run.env, [TEST_DATABASE_ENV]: database.url },
        stdio: "inherit",
      });
      run.onSpawn?.(child);
      child.once("exit", () => resolve());
    });
  } finally {
    await database.drop();
  }
}
