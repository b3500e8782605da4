import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import mysql from "mysql2/promise";

import { ensureMariadb, MARIADB_INSTALL_DB_BINARY, MARIADBD_BINARY } from "@/tests/support/ensure-mariadb";
import { findFreePort } from "@/tools/free-port";
import { pollUntil } from "@/tools/poll-until";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { withoutFakeClock } from "@/tools/without-fake-clock";

// MariaDB servers of the tests' own (never the machine's): `mariadb-install-db` into a temporary
// directory, `mariadbd --no-defaults` on a free port of 127.0.0.1, run as the mysql user, with or
// without performance_schema (and its GET_LOCK instrument, wait/lock/metadata/sql/mdl, on from
// the start). Each runs beside a shell that kills it when our end of the shell's stdin closes
// (this process died, even of SIGKILL); stop() shuts it down and dispose() also removes the
// directory. Root logs in over the server's Unix socket without a password.

const run = promisify(execFile);

export type MariadbServer = {
  port: number;
  /** The mysql:// url of a user on this server (over TCP, as Baton connects). */
  urlOf(user: string, password: string): string;
  /** A connection as root over the socket (the caller ends it). */
  connectAsRoot(): Promise<mysql.Connection>;
  /** SIGSTOP / SIGCONT: a server that is there but does not answer. */
  pause(): void;
  resume(): void;
  /** A clean shutdown (SIGTERM); resolves when mariadbd has exited. */
  stop(): Promise<void>;
  /** Stops it (if running) and removes its directory. */
  dispose(): Promise<void>;
  /** What mariadbd logged so far. */
  errorLog(): string;
};

export type MariadbServerOptions = { performanceSchema: boolean; log?: (line: string) => void };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) chownTree(full, uid, gid);
    else chownSync(full, uid, gid);
  }
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", user]), run("id", ["-g", user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startMariadbServer(options: MariadbServerOptions): Promise<MariadbServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[mariadb] ${line}\n`));
  ensureMariadb(log);
  const root = mkdtempSync(path.join(os.tmpdir(), "baton-mariadb-"));
  const dataDir = path.join(root, "data");
  const socket = path.join(root, "mariadbd.sock");
  const errorLogFile = path.join(root, "mariadbd.err");
  const port = await findFreePort();
  const mysqlUser = await idsOf("mysql");
  chownTree(root, mysqlUser.uid, mysqlUser.gid);
  let shell: ChildProcess | null = null;
  let serverPid = 0;
  let release: () => void = () => undefined;
  try {
    await run(
      MARIADB_INSTALL_DB_BINARY,
      ["--no-defaults", `--datadir=${dataDir}`, "--user=mysql", "--auth-root-authentication-method=normal", "--skip-test-db"],
      { env: withoutFakeClock(process.env), maxBuffer: 16 * 1024 * 1024 },
    );
    const args = [
      "--no-defaults",
      `--datadir=${dataDir}`,
      "--user=mysql",
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--socket=${socket}`,
      `--pid-file=${path.join(root, "mariadbd.pid")}`,
      `--log-error=${errorLogFile}`,
      "--innodb-buffer-pool-size=16M",
      "--max-connections=60",
      ...(options.performanceSchema
        ? ["--performance-schema=ON", "--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON"]
        : ["--performance-schema=OFF"]),
    ];
    // mariadbd cannot watch its parent: the shell beside it kills it when our end of its stdin
    // closes; it prints mariadbd's pid first.
    const started = spawn("sh", ["-c", `"${MARIADBD_BINARY}" "$@" & server=$!; echo "$server"; cat >/dev/null; kill -9 "$server"`, "mariadbd-guard", ...args], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
      env: withoutFakeClock(process.env),
    });
    shell = started;
    if (started.pid === undefined) throw new Error("could not start a shell for mariadbd");
    started.stdin!.on("error", () => undefined);
    started.unref();
    (started.stdin as unknown as { unref?: () => void }).unref?.();
    release = guardProcessGroup(started.pid, { removeOnExit: root });
    serverPid = await new Promise<number>((resolve, reject) => {
      started.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim().split("\n")[0])));
      started.once("exit", (code) => reject(new Error(`mariadbd's shell exited (${code}) before starting it`)));
    });
    (started.stdout as unknown as { unref?: () => void }).unref?.();
    await pollUntil(
      async () => {
        if (!isAlive(serverPid)) throw new Error(`mariadbd exited: ${readTail(errorLogFile)}`);
        const probe = await mysql.createConnection({ socketPath: socket, user: "root", connectTimeout: 1_000 }).catch(() => null);
        if (probe === null) return false;
        await probe.end().catch(() => probe.destroy());
        return true;
      },
      (isUp) => isUp,
      { description: `mariadbd on port ${port} to answer`, maxAttempts: 600, intervalMs: 100 },
    );
  } catch (error) {
    if (shell?.pid !== undefined) signalProcessGroup(shell.pid, "SIGKILL");
    release();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  async function stop(): Promise<void> {
    if (isAlive(serverPid)) {
      // A paused server must be continued to act on SIGTERM.
      process.kill(serverPid, "SIGCONT");
      process.kill(serverPid, "SIGTERM");
      await pollUntil(
        async () => !isAlive(serverPid),
        (isGone) => isGone,
        { description: `mariadbd ${serverPid} to shut down`, maxAttempts: 600, intervalMs: 100 },
      ).catch(() => signalProcessGroup(shell!.pid!, "SIGKILL"));
    }
    if (shell?.pid !== undefined) signalProcessGroup(shell.pid, "SIGKILL");
    release();
  }

  return {
    port,
    urlOf: (user, password) => `mysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/`,
    connectAsRoot: () => mysql.createConnection({ socketPath: socket, user: "root" }),
    pause: () => void process.kill(serverPid, "SIGSTOP"),
    resume: () => void process.kill(serverPid, "SIGCONT"),
    stop,
    async dispose() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
    errorLog: () => (existsSync(errorLogFile) ? readFileSync(errorLogFile, "utf8") : ""),
  };
}

function readTail(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").slice(-5).join(" | ") : "(no log)";
}
