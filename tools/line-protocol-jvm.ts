import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline";

import { guardProcessGroup, signalProcessGroup } from "./pulsar/process-guard";
import { readLogTail } from "./pulsar/read-log-tail";

// A JVM driven line by line (the lock contenders of the tests and the demo: ShedLock, Spring
// Integration, Quartz, MariaDB Connector/J; the systems' own election code: HBase, Solr,
// BookKeeper): commands on its stdin, answers and events on its stdout, its stderr kept (in
// memory, or in a log file for a chatty library) for the error of a JVM that exits. stdin stays
// an open pipe: the JVM exits when it closes (when this process dies, or close()); its process
// group is guarded, so a test that crashes leaves no JVM behind.

export type LineProtocolJvm = {
  /**
   * The next line `matches` accepts, or one already seen and not yet taken. Rejects when the JVM
   * exits first, or after `timeout.ms` when given, saying it awaited `timeout.what` (its claim on
   * a later line withdrawn).
   */
  next(matches: (line: string) => boolean, timeout?: { ms: number; what: string }): Promise<string>;
  /** Writes `line` and resolves with the first answer `answers` accepts; an answer starting "error " rejects. */
  command(line: string, answers: (reply: string) => boolean): Promise<string>;
  /** SIGKILL of its process group: a crash; resolves once it is gone. */
  kill(): Promise<void>;
  /** Closes its stdin: it exits on its own; resolves once it is gone. */
  close(): Promise<void>;
  isRunning(): boolean;
  /** The end of what it wrote on stderr. */
  errorTail(): string;
};

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}

type Waiter = { matches: (line: string) => boolean; resolve: (line: string) => void; reject: (error: Error) => void };

/** Starts `java args`; `name` says which JVM in its errors ("the Quartz contender"); `logFile` takes its stderr when given. */
export function startLineProtocolJvm(java: string, args: string[], name: string, options: { logFile?: string } = {}): LineProtocolJvm {
  const logFd = options.logFile === undefined ? null : openSync(options.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(java, args, { stdio: ["pipe", "pipe", logFd ?? "pipe"], detached: true });
  } finally {
    if (logFd !== null) closeSync(logFd);
  }
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const pid = child.pid;
  const releaseGuard = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const errorTail = () => (options.logFile === undefined ? stderr.join("").slice(-2_000) : readLogTail(options.logFile, 40));

  const lines: string[] = [];
  const waiters: Waiter[] = [];
  let exited = false;
  child.once("exit", (code, signal) => {
    exited = true;
    releaseGuard();
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`${name} exited (${code ?? signal}): ${errorTail()}`));
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const index = waiters.findIndex((waiter) => waiter.matches(line));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(line);
    else lines.push(line);
  });

  function next(matches: (line: string) => boolean, timeout?: { ms: number; what: string }): Promise<string> {
    const index = lines.findIndex(matches);
    if (index >= 0) return Promise.resolve(lines.splice(index, 1)[0]!);
    if (exited) return Promise.reject(new Error(`${name} has exited: ${errorTail()}`));
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        matches,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (timeout !== undefined) {
        timer = setTimeout(() => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(new Error(`${name} said no ${timeout.what} within ${timeout.ms} ms: ${errorTail()}`));
        }, timeout.ms);
      }
      waiters.push(waiter);
    });
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
      if (!exited) signalProcessGroup(pid, "SIGKILL");
      await gone;
    },
    async close() {
      const gone = exitOf(child);
      child.stdin!.end();
      await gone;
    },
    isRunning: () => !exited,
    errorTail,
  };
}
