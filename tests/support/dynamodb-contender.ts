import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { ensureDynamodbContenderBuilt } from "@/tools/dynamodb-contender/build-contender";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";

// Drives tools/dynamodb-contender's LockContender: one real AmazonDynamoDBLockClient (one owner
// name, its own heartbeat thread) on the JVM that takes and releases locks on command. One JVM
// per owner, so that killing one is one owner's crash, and stopping one (SIGSTOP) its stall.

export type DynamodbEventKind = "waiting" | "acquired" | "released" | "error";
export type DynamodbEvent = { kind: DynamodbEventKind; handle: string; text: string };

export type DynamodbContender = {
  owner: string;
  /** Asks for the lock; resolves once the request is under way ("waiting"): await next(handle, "acquired") for the lock. */
  acquire(handle: string, key: string, options?: { sortKey?: string; data?: string }): Promise<DynamodbEvent>;
  /** Releases and deletes the item (the client's default). */
  release(handle: string): Promise<DynamodbEvent>;
  /** Releases keeping the item, with isReleased = true. */
  releaseKeepingItem(handle: string): Promise<DynamodbEvent>;
  next(handle: string, kind: DynamodbEventKind): Promise<DynamodbEvent>;
  /** SIGKILL: a crashed owner, whose items stay with their last record version. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: an owner stalled (a GC pause) and woken up. */
  stall(): void;
  wake(): void;
};

export async function startDynamodbContender(options: {
  endpoint: string;
  tableName: string;
  owner: string;
  leaseMs: number;
  heartbeatMs: number;
  sortKeyName?: string;
}): Promise<DynamodbContender> {
  const build = await ensureDynamodbContenderBuilt({ log: (line) => process.stderr.write(`[dynamodb-lock-client] ${line}\n`) });
  const args = [
    "-Xmx128m",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
    `@${build.classpathArgFile}`,
    "baton.dynamodb.LockContender",
    options.endpoint,
    options.tableName,
    options.owner,
    String(options.leaseMs),
    String(options.heartbeatMs),
    ...(options.sortKeyName ? [options.sortKeyName] : []),
  ];
  // stdin stays an open pipe: the contender halts when it closes (when this process dies).
  const child = spawn(build.java, args, { stdio: ["pipe", "pipe", "pipe"], detached: true, env: { ...process.env, AWS_REGION: "us-east-1" } });
  if (child.pid === undefined) throw new Error("the dynamodb-lock-client contender did not start");
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));

  const seen: DynamodbEvent[] = [];
  const waiters: { handle: string; kind: DynamodbEventKind; resolve: (event: DynamodbEvent) => void }[] = [];
  let resolveReady: () => void = () => undefined;
  let rejectReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  child.once("exit", (code) =>
    rejectReady(new Error(`the dynamodb-lock-client contender exited (${code}) before it was ready: ${stderr.join("").slice(-2_000)}`)),
  );

  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [kind, handle] = line.split(" ");
    if (kind === "ready") {
      resolveReady();
      return;
    }
    const event: DynamodbEvent = { kind: kind as DynamodbEventKind, handle: handle ?? "", text: line };
    const index = waiters.findIndex((waiter) => waiter.handle === event.handle && (waiter.kind === event.kind || event.kind === "error"));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(event);
    else seen.push(event);
  });

  function next(handle: string, kind: DynamodbEventKind): Promise<DynamodbEvent> {
    const index = seen.findIndex((event) => event.handle === handle && (event.kind === kind || event.kind === "error"));
    if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
    return new Promise((resolve) => waiters.push({ handle, kind, resolve }));
  }

  async function command(line: string, handle: string, answer: DynamodbEventKind): Promise<DynamodbEvent> {
    const answered = next(handle, answer);
    child.stdin!.write(`${line}\n`);
    const event = await answered;
    if (event.kind === "error") throw new Error(`dynamodb-lock-client ${options.owner}: ${event.text}`);
    return event;
  }

  await ready;
  return {
    owner: options.owner,
    acquire: (handle, key, extra = {}) => command(`acquire ${handle} ${key} ${extra.sortKey ?? "-"}${extra.data ? ` ${extra.data}` : ""}`, handle, "waiting"),
    release: (handle) => command(`release ${handle}`, handle, "released"),
    releaseKeepingItem: (handle) => command(`release-keep ${handle}`, handle, "released"),
    next,
    async kill() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      signalProcessGroup(pid, "SIGKILL");
      await exited;
      release();
    },
    stall: () => void signalProcessGroup(pid, "SIGSTOP"),
    wake: () => void signalProcessGroup(pid, "SIGCONT"),
  };
}
