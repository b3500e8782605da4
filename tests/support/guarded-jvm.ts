import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { readLogTail } from "@/tools/pulsar/read-log-tail";

// A JVM a test starts and signals itself (a Kafka broker, a Helix controller): its output in a
// log file, and a shell beside it that kills it when this process goes (the shell's stdin closes,
// even when this process is SIGKILLed), so a crashed test leaves no JVM behind. The tests signal
// the JVM itself: SIGKILL is a crash, SIGTERM the system's own clean shutdown.

export type GuardedJvm = {
  /** SIGKILL of the JVM; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (the system's shutdown hooks run); resolves once it is gone. */
  terminate(): Promise<void>;
  isRunning(): boolean;
  logTail(): string;
  /** Kills the JVM and its shell, whatever their state. */
  dispose(): void;
};

function isGone(pid: number): boolean {
  // The JVM's parent is the shell, which reaps it only when it finishes: a zombie is gone too.
  if (!existsSync(`/proc/${pid}/stat`)) return true;
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
}

async function waitGone(pid: number, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!isGone(pid)) {
    if (performance.now() > deadline) throw new Error(`${what} did not exit within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startGuardedJvm(options: { java: string; args: string[]; logFile: string; name: string }): Promise<GuardedJvm> {
  const logFd = openSync(options.logFile, "a");
  // The JVM's stdout and stderr go to the shell's stderr (the log file); the shell's stdout says the JVM's pid.
  const shell = spawn(
    "sh",
    ["-c", '"$0" "$@" 1>&2 & server=$!; echo "$server"; cat >/dev/null; kill -9 "$server" 2>/dev/null', options.java, ...options.args],
    {
      stdio: ["pipe", "pipe", logFd],
      detached: true,
    },
  );
  closeSync(logFd);
  if (shell.pid === undefined) throw new Error(`could not start a shell for ${options.name}`);
  const shellPid = shell.pid;
  const release = guardProcessGroup(shellPid);
  shell.stdin!.on("error", () => undefined);
  shell.unref();
  const pid = await new Promise<number>((resolve, reject) => {
    createInterface({ input: shell.stdout! }).once("line", (line) => resolve(Number(line)));
    shell.once("exit", (code) => reject(new Error(`${options.name}'s shell exited (${code})`)));
  });
  let isStopped = false;
  return {
    async kill() {
      isStopped = true;
      process.kill(pid, "SIGKILL");
      await waitGone(pid, options.name, 10_000);
    },
    async terminate() {
      isStopped = true;
      process.kill(pid, "SIGTERM");
      await waitGone(pid, options.name, 60_000);
    },
    isRunning: () => !isStopped && !isGone(pid),
    logTail: () => readLogTail(options.logFile, 40),
    dispose() {
      signalProcessGroup(shellPid, "SIGKILL");
      release();
    },
  };
}
