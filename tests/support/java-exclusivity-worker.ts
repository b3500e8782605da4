import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { z } from "zod";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";

// Runs the Java exclusivity client (clients/java) the way a JVM team would: its jar, built by
// Maven here, on a real Pulsar client's classpath, driven through the test kit in its
// src/test/java (ConsumerWorker, ProduceKeyed, SettingsCheck, InterceptorBench).

export const JAVA_CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../clients/java");
const JAR = "baton-exclusivity-0.1.0.jar";

/** Builds the jar and the test kit once (Maven offline first, then Maven Central); later calls reuse them. */
export function ensureJavaClientBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(JAVA_CLIENT_DIR, "the Java exclusivity client", {
    ...options,
    goals: ["package", "test-compile"],
    includeTestScope: true,
    classDirs: [JAR, "test-classes"],
  });
}

export type JavaProgramResult = { code: number | null; stdout: string; stderr: string };

/** Runs a test-kit program to its end with key=value arguments. */
export async function runJavaProgram(
  mainClass: string,
  args: Record<string, string | number>,
  options: { javaOptions?: string[] } = {},
): Promise<JavaProgramResult> {
  const build = await ensureJavaClientBuilt();
  const child = spawn(
    build.java,
    [...(options.javaOptions ?? []), `@${build.classpathArgFile}`, `dev.baton.exclusivity.testkit.${mainClass}`, ...toArgs(args)],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const release = child.pid === undefined ? () => undefined : guardProcessGroup(child.pid);
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode) => resolve(exitCode));
  }).finally(release);
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

function toArgs(args: Record<string, string | number>): string[] {
  return Object.entries(args).map(([key, value]) => `${key}=${value}`);
}

export type WorkerLine = { kind: string; rest: string };

/** ExclusivityStats as the worker prints it. */
const javaStatsSchema = z.object({
  entered: z.number(),
  violations: z.number(),
  notCounted: z.number(),
  counterQueued: z.number(),
  eventsSent: z.number(),
  eventsBuffered: z.number(),
  eventsDropped: z.number(),
  countsSent: z.number(),
  countsPending: z.number(),
  countsDropped: z.number(),
  notSampled: z.number(),
});
export type JavaStats = z.output<typeof javaStatsSchema>;

export type JavaWorker = {
  name: string;
  /** Subscribes (the JVM is already up): resolves once the consumer is subscribed. */
  subscribe(): Promise<void>;
  /** Resolves with the first line (seen or to come) that matches; rejects when the worker exits first. */
  next(kind: string, rest?: (rest: string) => boolean): Promise<WorkerLine>;
  /** Every line so far. */
  lines(): WorkerLine[];
  /** A command on its stdin (ConsumerWorker: subscribe, release, stats, flush, close; LockHolder: acquire, leave, close). */
  send(command: string): void;
  /** Freezes (SIGSTOP) or wakes (SIGCONT) the JVM, as a long GC pause or a frozen VM would. */
  signal(signal: "SIGSTOP" | "SIGCONT"): void;
  stderr(): string;
  /** Sends close and waits for the JVM to exit; answers the worker's final stats. */
  close(): Promise<JavaStats>;
  /** SIGKILL, for cleanup after a failure. */
  kill(): Promise<void>;
};

/**
 * Starts a line-driven program of the test kit, by default ConsumerWorker (a real Pulsar consumer
 * with BatonExclusivityInterceptor; it subscribes on subscribe(), so that a test decides when it
 * joins), or LockHolder (an ExclusivityCounter under a Redis lock); resolves once the JVM is up.
 */
export async function startJavaWorker(
  args: Record<string, string | number> & { name: string },
  mainClass: "ConsumerWorker" | "LockHolder" = "ConsumerWorker",
): Promise<JavaWorker> {
  const build = await ensureJavaClientBuilt();
  const child = spawn(build.java, ["-Xmx256m", `@${build.classpathArgFile}`, `dev.baton.exclusivity.testkit.${mainClass}`, ...toArgs(args)], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid === undefined) throw new Error("the Java worker did not start");
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const seen: WorkerLine[] = [];
  const waiters: { kind: string; match: (rest: string) => boolean; resolve: (line: WorkerLine) => void; reject: (error: Error) => void }[] = [];
  let exitError: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exitError = new Error(`Java worker ${args.name} exited (${code ?? signal}): ${stderr.join("").slice(-3_000)}`);
      for (const waiter of waiters.splice(0)) waiter.reject(exitError);
      release();
      resolve();
    });
  });
  createInterface({ input: child.stdout! }).on("line", (text) => {
    const space = text.indexOf(" ");
    const line = { kind: space < 0 ? text : text.slice(0, space), rest: space < 0 ? "" : text.slice(space + 1) };
    seen.push(line);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const waiter = waiters[i]!;
      if (waiter.kind === line.kind && waiter.match(line.rest)) {
        waiters.splice(i, 1);
        waiter.resolve(line);
      }
    }
  });

  function next(kind: string, match: (rest: string) => boolean = () => true): Promise<WorkerLine> {
    const found = seen.find((line) => line.kind === kind && match(line.rest));
    if (found) return Promise.resolve(found);
    if (exitError) return Promise.reject(exitError);
    return new Promise((resolve, reject) => waiters.push({ kind, match, resolve, reject }));
  }

  await next("started");
  return {
    name: args.name,
    async subscribe() {
      child.stdin!.write("subscribe\n");
      await next("ready");
    },
    next,
    lines: () => [...seen],
    send: (command) => void child.stdin!.write(`${command}\n`),
    signal: (signal) => signalProcessGroup(pid, signal),
    stderr: () => stderr.join(""),
    async close() {
      const closed = next("closed");
      child.stdin!.write("close\n");
      const line = await closed;
      await exited;
      return javaStatsSchema.parse(JSON.parse(line.rest));
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) signalProcessGroup(pid, "SIGKILL");
      await exited;
    },
  };
}
