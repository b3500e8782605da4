// Ctrl-C in a terminal signals the whole foreground process group: without this, the web app,
// the worker and the embedded PostgreSQL would die at the same instant as the demo, before the
// fleet that still reports to them (pool errors, "cannot reach Baton" lines). So the demo runs
// in a process group of its own, under a small parent that stays in the terminal's group and
// hands the signal to the demo alone, which then stops things in order.
import { spawn } from "node:child_process";

const CHILD_MARK = "BATON_DEMO_IN_OWN_GROUP";

/**
 * In the terminal's process: starts this same script in a group of its own, forwards SIGINT and
 * SIGTERM to it and exits with its code; returns false. In that child: returns true (go on), and
 * stops the demo (`onParentGone`) when the parent dies without a word.
 */
export function isInOwnProcessGroup(onParentGone: () => void): boolean {
  if (process.env[CHILD_MARK] === "1") {
    // The IPC channel closes when the parent dies, even of SIGKILL.
    process.on("disconnect", onParentGone);
    return true;
  }
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CHILD_MARK]: "1" },
  });
  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null) child.kill(signal);
  };
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return false;
}
