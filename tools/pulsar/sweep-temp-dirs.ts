import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Removes temporary broker data dirs that nobody uses any more. A broker whose Node parent was
 * killed with SIGKILL exits on its own (the launcher watches its stdin) but cannot remove its
 * temporary data dir: the next start cleans up after it.
 *
 * A dir is stale when it carries our marker, the marker is older than STALE_AFTER_MS (so a dir
 * another process is just setting up is never taken), and no running process has it as --data-dir.
 * Needs /proc (Linux); elsewhere it does nothing.
 */

const STALE_AFTER_MS = 10 * 60_000;

export function sweepStaleTempDirs(parent: string, prefix: string, marker: string): string[] {
  if (!existsSync("/proc")) return [];
  const now = fileSystemNow(parent);
  const candidates = readdirSync(parent)
    .filter((name) => name.startsWith(prefix))
    .map((name) => path.join(parent, name))
    .filter((dir) => {
      const markerFile = path.join(dir, marker);
      return existsSync(markerFile) && now - statSync(markerFile).mtimeMs > STALE_AFTER_MS;
    });
  if (candidates.length === 0) return [];
  const inUse = listDataDirsInUse();
  const removed = candidates.filter((dir) => !inUse.has(dir));
  for (const dir of removed) rmSync(dir, { recursive: true, force: true });
  return removed;
}

/**
 * Now, on the clock that stamps the markers: a probe file's modification time. Not Date.now(): a
 * process under a moved clock (the suite's faketime pass) would take a dir another broker is
 * setting up this very second for one 400 days old, and remove it under that broker.
 */
function fileSystemNow(parent: string): number {
  const probe = path.join(parent, `.baton-clock-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(probe, "");
  try {
    return statSync(probe).mtimeMs;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Every `--data-dir <dir>` on a running process's command line. */
function listDataDirsInUse(): Set<string> {
  const dirs = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      // The process ended between listing and reading: it uses nothing.
      continue;
    }
    const index = args.indexOf("--data-dir");
    const dir = index >= 0 ? args[index + 1] : undefined;
    if (dir) dirs.add(dir);
  }
  return dirs;
}
