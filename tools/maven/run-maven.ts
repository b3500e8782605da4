import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";

import { guardProcessGroup } from "../pulsar/process-guard";

/**
 * Runs `mvn` in `cwd` with its output in `logFile`; answers its exit code. Maven is a JVM: it
 * runs in its own process group, guarded so that it dies with the process that started it.
 */
export function runMaven(args: string[], options: { cwd: string; logFile: string }): Promise<number> {
  const logFd = openSync(options.logFile, "w");
  return new Promise<number>((resolve, reject) => {
    const child = spawn("mvn", args, { cwd: options.cwd, stdio: ["ignore", logFd, logFd], detached: true });
    const release = child.pid === undefined ? () => undefined : guardProcessGroup(child.pid);
    child.once("error", (error) => {
      release();
      reject(error);
    });
    child.once("exit", (code, signal) => {
      release();
      resolve(code ?? (signal ? 128 : 1));
    });
  }).finally(() => closeSync(logFd));
}
