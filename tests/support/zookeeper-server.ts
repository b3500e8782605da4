import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, closeSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

import { findFreePort } from "@/tools/free-port";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { readLogTail } from "@/tools/pulsar/read-log-tail";
import { ensureZookeeperServerBuilt, ZOOKEEPER_MAIN_CLASS } from "@/tools/zookeeper/build-server";
import { pollUntil } from "@/tests/support/poll-until";

// A test-owned ZooKeeper 3.9.3 (tools/zookeeper/pom.xml, from Maven Central): a standalone
// server on a free port with its data in a temporary directory, in its own process group,
// guarded so that it dies with the test process, and stopped (directory removed) after.

export type TestZookeeperServer = {
  port: number;
  connectString: string;
  /** The server's session clamp: 2..20 x tickTime. */
  tickTimeMs: number;
  /** Stops the server (SIGKILL), keeping its data directory. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data (sessions and nodes survive, as after a restart). */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that is there but does not answer. */
  pause(): void;
  resume(): void;
  /** CPU time the server's JVM has used so far (from /proc), in ms. */
  cpuMs(): number;
  /** What the server has logged so far (INFO: it says "Expiring session 0x..." of each session it expires). */
  log(): string;
  dispose(): Promise<void>;
};

function isAnswering(port: number): Promise<boolean> {
  // `srvr` is on every server's default whitelist; "Mode:" only once the server serves.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: "127.0.0.1", port }, () => socket.end("srvr"));
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => resolve(false));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString().includes("Mode:")));
  });
}

function readJvmCpuMs(shellPid: number): number {
  // The group is `sh` + java + cat: the java child is the one whose command line is java's.
  const children = readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  for (const pid of children) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (!cmdline.includes(ZOOKEEPER_MAIN_CLASS)) continue;
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  throw new Error(`no ZooKeeper JVM under process ${shellPid}`);
}

/**
 * Starts `ZooKeeperServerMain <port> <dataDir> <tickTime>` with every four-letter word allowed
 * (Baton reads `dump`) and no admin server (it would take port 8080).
 */
export async function startZookeeperServer(options: { tickTimeMs?: number; fourLetterWords?: string } = {}): Promise<TestZookeeperServer> {
  const build = await ensureZookeeperServerBuilt({ log: (line) => process.stderr.write(`[zookeeper] ${line}\n`) });
  const port = await findFreePort();
  const tickTimeMs = options.tickTimeMs ?? 500;
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-zookeeper-"));
  const logFile = path.join(dir, "server.log");
  let pid = 0;
  let release: () => void = () => undefined;

  async function launch(): Promise<void> {
    const args = [
      `-Dzookeeper.4lw.commands.whitelist=${options.fourLetterWords ?? "*"}`,
      "-Dzookeeper.admin.enableServer=false",
      "-Xmx512m",
      `@${build.classpathArgFile}`,
      ZOOKEEPER_MAIN_CLASS,
      String(port),
      path.join(dir, "data"),
      String(tickTimeMs),
    ];
    const logFd = openSync(logFile, "a");
    // The JVM cannot watch its parent, so a shell runs beside it: `cat` returns when our end of
    // its stdin closes (this process died, even of SIGKILL) and the shell then kills the server.
    const child = spawn("sh", ["-c", '"$0" "$@" & server=$!; cat >/dev/null; kill -9 "$server"', build.java, ...args], {
      stdio: ["pipe", logFd, logFd],
      detached: true,
    });
    closeSync(logFd);
    if (child.pid === undefined) throw new Error("could not start a shell for the ZooKeeper server");
    pid = child.pid;
    child.stdin!.on("error", () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    release = guardProcessGroup(pid);
    try {
      await pollUntil(
        () => isAnswering(port),
        (isUp) => isUp,
        { description: `ZooKeeper on port ${port} to answer`, maxAttempts: 150, intervalMs: 100 },
      );
    } catch (error) {
      await stop();
      throw new Error(`${(error as Error).message}\n${readLogTail(logFile, 30)}`);
    }
  }

  async function stop(): Promise<void> {
    signalProcessGroup(pid, "SIGKILL");
    await pollUntil(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (isGone) => isGone,
      { description: `ZooKeeper ${pid} to exit`, maxAttempts: 100, intervalMs: 50 },
    );
    release();
  }

  try {
    await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    connectString: `127.0.0.1:${port}`,
    tickTimeMs,
    stop,
    restart: launch,
    pause: () => void signalProcessGroup(pid, "SIGSTOP"),
    resume: () => void signalProcessGroup(pid, "SIGCONT"),
    cpuMs: () => readJvmCpuMs(pid),
    log: () => readFileSync(logFile, "utf8"),
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
