// redis-server instances of our own, on free ports, for the tests (a Redlock group needs 3
// independent masters; notifications and restarts must never touch the machine's Redis) and the
// demo (its Redlock group). Each runs in its own process group, guarded so that it dies with the
// Node process that started it.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { Redis } from "ioredis";

import { findFreePort } from "@/tools/free-port";
import { pollUntil } from "@/tools/poll-until";
import { withoutFakeClock } from "@/tools/without-fake-clock";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";

export type RedisServer = {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: nothing to save). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that is there but does not answer. */
  pause(): void;
  resume(): void;
  /** Stops it (if running) and removes its directory. */
  dispose(): Promise<void>;
};

export type RedisServerOptions = {
  /** Keyspace notifications on this server only (e.g. "K$gxh"). */
  notifyKeyspaceEvents?: string;
  password?: string;
  tls?: { certFile: string; keyFile: string; caFile: string };
  extraArgs?: string[];
  /** The server's working directory (created; removed by dispose). Default: a new temporary one. */
  dir?: string;
};

function waitForExit(pid: number): Promise<void> {
  return pollUntil(
    async () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    (isGone) => isGone,
    { description: `redis-server ${pid} to exit`, maxAttempts: 100, intervalMs: 50 },
  ).then(() => undefined);
}

function makeDir(dir: string | undefined): string {
  if (dir === undefined) return mkdtempSync(path.join(os.tmpdir(), "baton-redis-"));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Starts `redis-server --port N --save '' --appendonly no` on a free port. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await findFreePort();
  const dir = makeDir(options.dir);
  let pid = 0;
  let release: () => void = () => undefined;

  async function launch(): Promise<void> {
    // With TLS the plain port is off (0) and the free port serves TLS only.
    const listen = options.tls
      ? [
          "--port",
          "0",
          "--tls-port",
          String(port),
          "--tls-cert-file",
          options.tls.certFile,
          "--tls-key-file",
          options.tls.keyFile,
          "--tls-ca-cert-file",
          options.tls.caFile,
          "--tls-auth-clients",
          "no",
        ]
      : ["--port", String(port)];
    const args = [...listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
    if (options.notifyKeyspaceEvents) args.push("--notify-keyspace-events", options.notifyKeyspaceEvents);
    if (options.password) args.push("--requirepass", options.password);
    args.push(...(options.extraArgs ?? []));
    // redis-server cannot watch its parent, so a shell runs beside it: `cat` returns when our
    // end of its stdin closes (this process died, even of SIGKILL, which no exit handler sees)
    // and the shell then kills the server. The whole group is what stop() and the guard kill.
    const child = spawn("sh", ["-c", 'redis-server "$@" & server=$!; cat >/dev/null; kill -9 "$server"', "redis-server-guard", ...args], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      env: withoutFakeClock(process.env),
    });
    if (child.pid === undefined) throw new Error("could not start a shell for redis-server");
    pid = child.pid;
    // EPIPE once the group is gone; stop() is what waits for that.
    child.stdin!.on("error", () => undefined);
    // Neither the process nor the pipe should keep a finished run alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    release = guardProcessGroup(pid, { removeOnExit: dir });
    try {
      await pollUntil(
        async () => {
          const probe = new Redis({
            port,
            host: "127.0.0.1",
            password: options.password,
            tls: options.tls ? { ca: readFileSync(options.tls.caFile) } : undefined,
            lazyConnect: true,
            maxRetriesPerRequest: 0,
            retryStrategy: () => null,
          });
          probe.on("error", () => undefined);
          try {
            await probe.connect();
            return (await probe.ping()) === "PONG";
          } catch {
            return false;
          } finally {
            probe.disconnect();
          }
        },
        (isUp) => isUp,
        { description: `redis-server on port ${port} to answer`, maxAttempts: 100, intervalMs: 50 },
      );
    } catch (error) {
      await stop();
      throw error;
    }
  }

  async function stop(): Promise<void> {
    signalProcessGroup(pid, "SIGKILL");
    await waitForExit(pid);
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
    url: `${options.tls ? "rediss" : "redis"}://127.0.0.1:${port}`,
    stop,
    async restart() {
      await launch();
    },
    pause: () => void signalProcessGroup(pid, "SIGSTOP"),
    resume: () => void signalProcessGroup(pid, "SIGCONT"),
    async dispose() {
      // A paused server must be continued to die of anything but SIGKILL; SIGKILL works anyway.
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
