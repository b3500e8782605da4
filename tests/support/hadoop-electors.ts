import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";

// Drives tests/support/hadoop-elector's ElectorContender: Hadoop 3.4.1's ActiveStandbyElector (the
// one HDFS's ZKFC elects with) writing HDFS's own ActiveNodeInfo, one JVM (one ZooKeeper session)
// per NameNode, so that killing one is one failover controller's crash.

export const HADOOP_ELECTOR_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "hadoop-elector");

export function ensureHadoopElectorBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(HADOOP_ELECTOR_DIR, "the Hadoop ActiveStandbyElector test contender", options);
}

export type ElectorEvent = "joined" | "active" | "standby" | "neutral" | "fence" | "fatal" | "quit";

export type HadoopElector = {
  namenodeId: string;
  /** Resolves with the next event of this kind (or one already seen and not yet taken). */
  next(kind: ElectorEvent): Promise<string>;
  /** quitElection without fencing: what a ZKFC does on a graceful stop (lock and breadcrumb deleted, session closed). */
  quit(): Promise<string>;
  /** SIGKILL: a failover controller's crash; its lock stays until ZooKeeper expires the session. */
  kill(): Promise<void>;
};

export async function startHadoopElector(options: {
  zookeeper: string;
  sessionTimeoutMs: number;
  parent: string;
  nameservice: string;
  namenodeId: string;
  host: string;
  port: number;
}): Promise<HadoopElector> {
  const build = await ensureHadoopElectorBuilt({ log: (line) => process.stderr.write(`[hadoop] ${line}\n`) });
  const args = [
    "-Xmx128m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    `@${build.classpathArgFile}`,
    "baton.hadoop.ElectorContender",
    options.zookeeper,
    String(options.sessionTimeoutMs),
    options.parent,
    options.nameservice,
    options.namenodeId,
    options.host,
    String(options.port),
  ];
  // stdin stays an open pipe: the contender halts when it closes (when this process dies).
  const child = spawn(build.java, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  if (child.pid === undefined) throw new Error("the Hadoop elector did not start");
  const pid = child.pid;
  const release = guardProcessGroup(pid);
  child.stdin!.on("error", () => undefined);
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const seen: string[] = [];
  const waiters: { kind: ElectorEvent; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const kind = line.split(" ")[0] as ElectorEvent;
    const index = waiters.findIndex((waiter) => waiter.kind === kind);
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(line);
    else seen.push(line);
  });
  child.once("exit", (code) => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the Hadoop elector exited (${code}): ${stderr.join("").slice(-2_000)}`));
  });

  function next(kind: ElectorEvent): Promise<string> {
    const index = seen.findIndex((line) => line.split(" ")[0] === kind);
    if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => waiters.push({ kind, resolve, reject }));
  }

  await next("joined");
  return {
    namenodeId: options.namenodeId,
    next,
    quit() {
      const quitted = next("quit");
      child.stdin!.write("quit\n");
      return quitted;
    },
    async kill() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      signalProcessGroup(pid, "SIGKILL");
      await exited;
      release();
    },
  };
}
