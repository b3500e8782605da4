import "server-only";

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCE_DIRS = ["app", "components", "lib"];
const SOURCE_FILES = ["next.config.js", "package-lock.json", "tsconfig.json"];

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

/** True when there is no production build in `distDir`, or a source file is newer than it. */
export function isNextBuildStale(root: string, distDir = ".next"): boolean {
  const buildId = path.join(root, distDir, "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const builtAt = statSync(buildId).mtimeMs;
  return [...SOURCE_DIRS, ...SOURCE_FILES].some((entry) => newestMtime(path.join(root, entry)) > builtAt);
}

/**
 * Runs `next build` when the production build is missing or older than the sources.
 * `distDir` must match next.config.js (BATON_NEXT_DIST_DIR there).
 */
export function ensureNextBuild(root: string, log: (line: string) => void, distDir = ".next"): void {
  if (!isNextBuildStale(root, distDir)) return;
  log("building the web app (next build)...");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
}
