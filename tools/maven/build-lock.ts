import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

import { isProcessAlive } from "@/lib/is-process-alive";

// One build of a project at a time across processes: a test run and the demo, or two benches,
// started together would otherwise run Maven in the same target/ at once and leave a classpath
// (or a jar) half written for both. The lock is a file created exclusively, holding its
// process's id; a lock whose process is gone (killed mid-build) is taken over.

/** A lock file still empty this long after it was made lost its maker between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 10_000;

/**
 * The process holding the lock; "unwritten" while its maker has yet to write its id, "stale" when
 * it is gone; null when there is no lock file (any more).
 */
function holderOf(lockPath: string): number | "unwritten" | "stale" | null {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(lockPath, "utf8").trim();
    ageMs = Date.now() - statSync(lockPath).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const pid = Number(text);
  if (text === "" || !Number.isInteger(pid) || pid <= 0) return ageMs > EMPTY_LOCK_STALE_MS ? "stale" : "unwritten";
  return isProcessAlive(pid) ? pid : "stale";
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Runs `build` holding the lock file `lockPath`: waits while another process (or another build in
 * this one) holds it, saying so once through `onWait` with the holder's process id.
 */
export async function withBuildLock<T>(
  lockPath: string,
  build: () => Promise<T>,
  options: { pollMs?: number; onWait?: (holderPid: number) => void } = {},
): Promise<T> {
  let hasSaidWaiting = false;
  while (!tryCreate(lockPath)) {
    const holder = holderOf(lockPath);
    if (holder === "stale") {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (typeof holder === "number" && !hasSaidWaiting) {
      hasSaidWaiting = true;
      options.onWait?.(holder);
    }
    await delay(options.pollMs ?? 200);
  }
  try {
    return await build();
  } finally {
    rmSync(lockPath, { force: true });
  }
}
