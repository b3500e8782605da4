import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { ensureContenderBuilt } from "@/tools/redisson/build-contender";

// Drives tools/redisson's LockContender: a real Redisson client on the JVM that takes and gives
// back locks on command. Each handle is one Java thread (Redisson locks are thread-bound).

export type ContenderEvent = {
  kind: "waiting" | "acquired" | "reentered" | "released" | "error";
  handle: string;
  threadId: string;
  holdCount: number | null;
  text: string;
};

export type RedissonContender = {
  /** The uuid Redisson writes before ":<thread id>" in its lock hashes. */
  clientId: string;
  /** Starts taking the lock on the handle's own thread; resolves when the thread is waiting (it may already hold it). */
  acquire(handle: string, kind: "lock" | "fair", name: string): Promise<ContenderEvent>;
  /** Resolves with the handle's next event of this kind (or one already seen). */
  next(handle: string, kind: ContenderEvent["kind"]): Promise<ContenderEvent>;
  reenter(handle: string): Promise<ContenderEvent>;
  release(handle: string): Promise<ContenderEvent>;
  /** SIGKILL: a crashed holder, whose locks stay until their TTL runs out. */
  kill(): Promise<void>;
};

/** Starts a contender against `redisUrl`; `watchdogMs` shortens Redisson's 30 s lock lease so tests see renewals sooner. */
export async function startRedissonContender(redisUrl: string, options: { watchdogMs?: number } = {}): Promise<RedissonContender> {
  const build = await ensureContenderBuilt();
  const args = [`@${build.classpathArgFile}`, "baton.redisson.LockContender", redisUrl];
  if (options.watchdogMs) args.push(String(options.watchdogMs));
  // stdin stays an open pipe: the contender exits when it closes (when this process dies).
  const child = spawn(build.java, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  if (child.pid === undefined) throw new Error("the Redisson contender did not start");
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  // EPIPE once the JVM is gone; kill() is what waits for that.
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));

  const seen: ContenderEvent[] = [];
  const waiters: { handle: string; kind: ContenderEvent["kind"]; resolve: (event: ContenderEvent) => void }[] = [];
  let resolveClient: (id: string) => void = () => undefined;
  let rejectClient: (error: Error) => void = () => undefined;
  const clientId = new Promise<string>((resolve, reject) => {
    resolveClient = resolve;
    rejectClient = reject;
  });
  child.once("exit", (code) => rejectClient(new Error(`the Redisson contender exited (${code}) before connecting: ${stderr.join("").slice(-2_000)}`)));

  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [kind, handle, threadId, holdCount] = line.split(" ");
    if (kind === "client") {
      resolveClient(handle!);
      return;
    }
    const event: ContenderEvent = {
      kind: kind as ContenderEvent["kind"],
      handle: handle!,
      threadId: threadId ?? "",
      holdCount: holdCount === undefined ? null : Number(holdCount),
      text: line,
    };
    const index = waiters.findIndex((waiter) => waiter.handle === event.handle && (waiter.kind === event.kind || event.kind === "error"));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(event);
    else seen.push(event);
  });

  function next(handle: string, kind: ContenderEvent["kind"]): Promise<ContenderEvent> {
    const index = seen.findIndex((event) => event.handle === handle && event.kind === kind);
    if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
    return new Promise((resolve) => waiters.push({ handle, kind, resolve }));
  }

  function send(line: string): void {
    child.stdin!.write(`${line}\n`);
  }

  return {
    clientId: await clientId,
    async acquire(handle, kind, name) {
      const waiting = next(handle, "waiting");
      send(`acquire ${handle} ${kind} ${name}`);
      return waiting;
    },
    next,
    async reenter(handle) {
      const reentered = next(handle, "reentered");
      send(`reenter ${handle}`);
      return reentered;
    },
    async release(handle) {
      const released = next(handle, "released");
      send(`release ${handle}`);
      return released;
    },
    async kill() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      signalProcessGroup(pid, "SIGKILL");
      await exited;
      release();
    },
  };
}
