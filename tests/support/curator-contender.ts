import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { ensureCuratorContenderBuilt } from "@/tools/curator/build-contender";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";

// Drives tools/curator's CuratorContender: one real Curator client (one ZooKeeper session) on
// the JVM that takes locks and joins elections on command. One JVM per participant, so that
// killing one is one participant's crash.

export type CuratorEventKind = "waiting" | "acquired" | "released" | "started" | "leader" | "follower" | "closed" | "relinquished" | "error";
export type CuratorEvent = { kind: CuratorEventKind; handle: string; text: string };

export type CuratorContender = {
  /** The contender's ZooKeeper session id (0x...): the ephemeralOwner of its nodes. */
  sessionId: string;
  mutex(handle: string, path: string): Promise<CuratorEvent>;
  semaphore(handle: string, path: string): Promise<CuratorEvent>;
  release(handle: string): Promise<CuratorEvent>;
  latch(handle: string, path: string, id: string): Promise<CuratorEvent>;
  close(handle: string): Promise<CuratorEvent>;
  /** A LeaderSelector with participant id `id`: it leads (holds its mutex) until relinquish(). */
  selector(handle: string, path: string, id: string): Promise<CuratorEvent>;
  relinquish(handle: string): Promise<CuratorEvent>;
  /** Resolves with the handle's next event of this kind (or one already seen). */
  next(handle: string, kind: CuratorEventKind): Promise<CuratorEvent>;
  /** SIGKILL: a crashed participant, whose nodes stay until its session times out. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a participant stalled (a GC pause) and woken up. */
  stall(): void;
  wake(): void;
};

export async function startCuratorContender(connectString: string, sessionTimeoutMs: number): Promise<CuratorContender> {
  const build = await ensureCuratorContenderBuilt({ log: (line) => process.stderr.write(`[curator] ${line}\n`) });
  // Small heap, one compiler thread: several contenders share two cores with the server.
  const args = [
    "-Xmx128m",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    `@${build.classpathArgFile}`,
    "baton.curator.CuratorContender",
    connectString,
    String(sessionTimeoutMs),
  ];
  // stdin stays an open pipe: the contender halts when it closes (when this process dies).
  const child = spawn(build.java, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  if (child.pid === undefined) throw new Error("the Curator contender did not start");
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));

  const seen: CuratorEvent[] = [];
  const waiters: { handle: string; kind: CuratorEventKind; resolve: (event: CuratorEvent) => void }[] = [];
  let resolveSession: (id: string) => void = () => undefined;
  let rejectSession: (error: Error) => void = () => undefined;
  const session = new Promise<string>((resolve, reject) => {
    resolveSession = resolve;
    rejectSession = reject;
  });
  child.once("exit", (code) => rejectSession(new Error(`the Curator contender exited (${code}) before connecting: ${stderr.join("").slice(-2_000)}`)));

  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [kind, handle] = line.split(" ");
    if (kind === "session") {
      resolveSession(handle!);
      return;
    }
    const event: CuratorEvent = { kind: kind as CuratorEventKind, handle: handle ?? "", text: line };
    const index = waiters.findIndex((waiter) => waiter.handle === event.handle && (waiter.kind === event.kind || event.kind === "error"));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(event);
    else seen.push(event);
  });

  function next(handle: string, kind: CuratorEventKind): Promise<CuratorEvent> {
    const index = seen.findIndex((event) => event.handle === handle && event.kind === kind);
    if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
    return new Promise((resolve) => waiters.push({ handle, kind, resolve }));
  }

  function command(line: string, handle: string, answer: CuratorEventKind): Promise<CuratorEvent> {
    const answered = next(handle, answer);
    child.stdin!.write(`${line}\n`);
    return answered;
  }

  return {
    sessionId: await session,
    mutex: (handle, path) => command(`mutex ${handle} ${path}`, handle, "waiting"),
    semaphore: (handle, path) => command(`semaphore ${handle} ${path}`, handle, "waiting"),
    release: (handle) => command(`release ${handle}`, handle, "released"),
    latch: (handle, path, id) => command(`latch ${handle} ${path} ${id}`, handle, "started"),
    close: (handle) => command(`close ${handle}`, handle, "closed"),
    selector: (handle, path, id) => command(`selector ${handle} ${path} ${id}`, handle, "started"),
    relinquish: (handle) => command(`relinquish ${handle}`, handle, "relinquished"),
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
