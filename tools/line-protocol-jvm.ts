import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { guardProcessGroup, signalProcessGroup } from "./pulsar/process-guard";

// A JVM driven line by line (the lock contenders of the tests and the demo: ShedLock, Spring
// Integration, Quartz, MariaDB Connector/J): commands on its stdin, answers on its stdout, its
// stderr kept for the error of a JVM that exits. stdin stays an open pipe: the JVM exits when it
// closes (when this process dies, or close()); its process group is guarded, so a test that
// crashes leaves no JVM behind.

export type LineProtocolJvm = {
  /** The next line `matches` accepts, or one already seen and not yet taken. */
  next(matches: (line: string) => boolean): Promise<string>;
  /** Writes `line` and resolves with the first answer `answers` accepts; an answer starting "error " rejects. */
  command(line: string, answers: (reply: string) => boolean): Promise<string>;
  /** SIGKILL: a crash; resolves once it is gone. */
  kill(): Promise<void>;
  /** Closes its stdin: it exits on its own; resolves once it is gone. */
  close(): Promise<void>;
};

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}

/** Starts `java args`; `name` says which JVM in its errors ("the Quartz contender"). */
export function startLineProtocolJvm(java: string, args: string[], name: string): LineProtocolJvm {
  const child = spawn(java, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const pid = child.pid;
  const releaseGuard = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));

  const lines: string[] = [];
  const waiters: { matches: (line: string) => boolean; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let exited = false;
  child.once("exit", (code, signal) => {
    exited = true;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`${name} exited (${code ?? signal}): ${stderr.join("").slice(-2_000)}`));
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const index = waiters.findIndex((waiter) => waiter.matches(line));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(line);
    else lines.push(line);
  });

  function next(matches: (line: string) => boolean): Promise<string> {
    const index = lines.findIndex(matches);
    if (index >= 0) return Promise.resolve(lines.splice(index, 1)[0]!);
    if (exited) return Promise.reject(new Error(`${name} has exited: ${stderr.join("").slice(-2_000)}`));
    return new Promise((resolve, reject) => waiters.push({ matches, resolve, reject }));
  }

  return {
    next,
    async command(line, answers) {
      const reply = next(answers);
      child.stdin!.write(`${line}\n`);
      const answer = await reply;
      if (answer.startsWith("error ")) throw new Error(`${name} answered "${line}" with: ${answer}`);
      return answer;
    },
    async kill() {
      const gone = exitOf(child);
      signalProcessGroup(pid, "SIGKILL");
      await gone;
      releaseGuard();
    },
    async close() {
      const gone = exitOf(child);
      child.stdin!.end();
      await gone;
      releaseGuard();
    },
  };
}
