import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { Agent, request } from "undici";

import { findFreePort } from "@/tools/free-port";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { ETCD_BINARY, ensureEtcd } from "@/tests/support/ensure-etcd";
import { pollUntil } from "@/tests/support/poll-until";

// Test-owned etcd servers (Debian's etcd 3.4): one member on free client and peer ports with a
// temporary data directory, in its own process group, guarded so that it dies with the test
// process. Restarts keep the data directory, so revisions go on where they were.

export type TestEtcdServer = {
  clientPort: number;
  /** http://127.0.0.1:<client port>: the gRPC API and the JSON gateway both answer here. */
  url: string;
  /** The etcd process itself (for its CPU time). */
  readonly pid: number;
  /** Stops the server (SIGKILL: a crash, the data directory kept). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data. */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a member that is there but does not answer. */
  pause(): void;
  resume(): void;
  /** Stops it (if running) and removes its data. */
  dispose(): Promise<void>;
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts one etcd member. `tls`: the client port serves https only, with this certificate (the
 * probe trusts `caFile`).
 */
export async function startEtcdServer(
  options: { extraArgs?: string[]; tls?: { certFile: string; keyFile: string; caFile: string }; log?: (line: string) => void } = {},
): Promise<TestEtcdServer> {
  ensureEtcd(options.log);
  const [clientPort, peerPort] = [await findFreePort(), await findFreePort()];
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-etcd-"));
  const url = `${options.tls ? "https" : "http"}://127.0.0.1:${clientPort}`;
  const probeAgent = options.tls ? new Agent({ connect: { ca: readFileSync(options.tls.caFile) } }) : undefined;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  let groupId = 0;
  let etcdPid = 0;
  let release: () => void = () => undefined;

  async function launch(): Promise<void> {
    const args = [
      "--name",
      "default",
      "--data-dir",
      path.join(dir, "data"),
      "--listen-client-urls",
      url,
      "--advertise-client-urls",
      url,
      "--listen-peer-urls",
      peerUrl,
      "--initial-advertise-peer-urls",
      peerUrl,
      "--initial-cluster",
      `default=${peerUrl}`,
      "--log-level",
      "error",
      ...(options.tls ? ["--cert-file", options.tls.certFile, "--key-file", options.tls.keyFile] : []),
      ...(options.extraArgs ?? []),
    ];
    // etcd cannot watch its parent: a shell runs beside it and kills it when our end of its stdin
    // closes (this process died, even of SIGKILL). The shell prints etcd's pid first.
    const child = spawn("sh", ["-c", `"${ETCD_BINARY}" "$@" 2>/dev/null & server=$!; echo $server; cat >/dev/null; kill -9 "$server"`, "etcd-guard", ...args], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
    });
    if (child.pid === undefined) throw new Error("could not start a shell for etcd");
    groupId = child.pid;
    child.stdin!.on("error", () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    release = guardProcessGroup(groupId, { removeOnExit: dir });
    etcdPid = await new Promise<number>((resolve, reject) => {
      child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim().split("\n")[0])));
      child.once("exit", (code) => reject(new Error(`etcd's shell exited (${code}) before starting it`)));
    });
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    try {
      await pollUntil(
        async () => {
          try {
            const response = await request(`${url}/health`, { signal: AbortSignal.timeout(500), dispatcher: probeAgent });
            return response.statusCode === 200 && ((await response.body.json()) as { health?: string }).health === "true";
          } catch {
            return false;
          }
        },
        (isUp) => isUp,
        { description: `etcd on port ${clientPort} to be healthy`, maxAttempts: 200, intervalMs: 50 },
      );
    } catch (error) {
      await stop();
      throw error;
    }
  }

  async function stop(): Promise<void> {
    signalProcessGroup(groupId, "SIGKILL");
    await pollUntil(
      async () => !isAlive(etcdPid) && !isAlive(groupId),
      (isGone) => isGone,
      { description: `etcd ${etcdPid} to exit`, maxAttempts: 100, intervalMs: 50 },
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
    clientPort,
    url,
    get pid() {
      return etcdPid;
    },
    stop,
    restart: launch,
    pause: () => void signalProcessGroup(groupId, "SIGSTOP"),
    resume: () => void signalProcessGroup(groupId, "SIGCONT"),
    async dispose() {
      await stop();
      await probeAgent?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function stopEtcdServers(servers: TestEtcdServer[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      try {
        await server.dispose();
      } catch (error) {
        process.stderr.write(`[test] could not stop etcd on port ${server.clientPort}: ${String(error)}\n`);
      }
    }),
  );
}
