import { rmSync } from "node:fs";
import { constants } from "node:os";
import { isMainThread } from "node:worker_threads";

/**
 * Makes sure a child process group (the broker's JVM, Maven) never outlives this Node process.
 *
 * Every guarded child is spawned `detached`, so it leads its own process group and we can kill the
 * whole group. On any way out of Node that runs JavaScript (normal exit, process.exit, an uncaught
 * exception or unhandled rejection, SIGINT/SIGTERM/SIGHUP) the group gets SIGKILL. The one way
 * that runs no JavaScript, SIGKILL of Node itself, is covered on the Java side: the launcher
 * watches its stdin pipe and exits when we are gone.
 */

interface GuardedGroup {
  pid: number;
  /** Synchronous clean-up after the kill, e.g. removing a temporary data directory. */
  removeOnExit?: string;
}

const guarded = new Map<number, GuardedGroup>();
let isInstalled = false;

const HANDLED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Registers a child process group; the returned function unregisters it (after a normal stop). */
export function guardProcessGroup(pid: number, options: { removeOnExit?: string } = {}): () => void {
  installHandlers();
  guarded.set(pid, { pid, removeOnExit: options.removeOnExit });
  return () => {
    guarded.delete(pid);
  };
}

/** Sends `signal` to a process group; false if the group no longer exists. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    // ESRCH: the group is already gone, which is what the caller wants.
    if (isErrnoException(error) && error.code === "ESRCH") return false;
    throw error;
  }
}

function killAllGuardedNow(): void {
  for (const group of guarded.values()) {
    try {
      signalProcessGroup(group.pid, "SIGKILL");
      if (group.removeOnExit) rmSync(group.removeOnExit, { recursive: true, force: true });
    } catch (error) {
      // Nothing can be awaited while the process exits; say what is left behind.
      process.stderr.write(`[baton] could not kill process group ${group.pid}: ${String(error)}\n`);
    }
  }
  guarded.clear();
}

function installHandlers(): void {
  if (isInstalled) return;
  isInstalled = true;
  process.on("exit", killAllGuardedNow);
  // A crash also ends in "exit"; this only kills earlier, and only when the crash is certain: with
  // an uncaughtException listener (test runners install one) the process goes on and so must the
  // broker.
  process.on("uncaughtExceptionMonitor", () => {
    if (process.listenerCount("uncaughtException") === 0) killAllGuardedNow();
  });
  // Signal listeners cannot be installed from worker threads; their main thread owns signals.
  if (!isMainThread) return;
  for (const signal of HANDLED_SIGNALS) {
    process.on(signal, () => {
      // Another listener (start-local's graceful Ctrl-C, a test runner) decides what happens next;
      // its process.exit() still reaches our "exit" handler.
      if (process.listenerCount(signal) > 1) return;
      killAllGuardedNow();
      // Without our listener Node would have died of the signal: keep the conventional status.
      process.exit(128 + constants.signals[signal]);
    });
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && "code" in error;
}
