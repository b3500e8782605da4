import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { request } from "undici";

import { findFreePort } from "@/tools/free-port";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { ensurePrometheus, PROMETHEUS_BINARY } from "@/tests/support/ensure-prometheus";
import { pollUntil } from "@/tests/support/poll-until";

// A test-owned Prometheus (Debian's) on a free port with a temporary data directory, scraping
// the given targets every second, in its own process group guarded so that it dies with the test.

export type PrometheusSample = { metric: Record<string, string>; value: [number, string] };

export type TestPrometheus = {
  url: string;
  /** An instant PromQL query through the HTTP API; the vector's samples. */
  query(promql: string): Promise<PrometheusSample[]>;
  /** Stops the server and removes its data. */
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

/** Starts Prometheus scraping `target` (host:port) at `metricsPath` every second, as job `baton`. */
export async function startPrometheus(options: { target: string; metricsPath?: string }): Promise<TestPrometheus> {
  ensurePrometheus();
  const port = await findFreePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-prometheus-"));
  const url = `http://127.0.0.1:${port}`;
  const configFile = path.join(dir, "prometheus.yml");
  writeFileSync(
    configFile,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: baton",
      `    metrics_path: ${options.metricsPath ?? "/metrics"}`,
      "    static_configs:",
      `      - targets: ["${options.target}"]`,
      "",
    ].join("\n"),
  );
  const args = ["--config.file", configFile, "--storage.tsdb.path", path.join(dir, "data"), "--web.listen-address", `127.0.0.1:${port}`, "--log.level", "warn"];
  // Prometheus cannot watch its parent: a shell runs beside it and kills it when our end of its
  // stdin closes (this process died, even of SIGKILL). The shell prints Prometheus's pid first.
  const child = spawn(
    "sh",
    ["-c", `"${PROMETHEUS_BINARY}" "$@" 2>/dev/null & server=$!; echo $server; cat >/dev/null; kill -9 "$server"`, "prometheus-guard", ...args],
    {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
    },
  );
  if (child.pid === undefined) throw new Error("could not start a shell for Prometheus");
  const groupId = child.pid;
  child.stdin!.on("error", () => undefined);
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  const release = guardProcessGroup(groupId, { removeOnExit: dir });
  const serverPid = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim().split("\n")[0])));
    child.once("exit", (code) => reject(new Error(`Prometheus's shell exited (${code}) before starting it`)));
  });
  (child.stdout as unknown as { unref?: () => void }).unref?.();

  async function dispose(): Promise<void> {
    signalProcessGroup(groupId, "SIGKILL");
    await pollUntil(
      async () => !isAlive(serverPid) && !isAlive(groupId),
      (isGone) => isGone,
      { description: `Prometheus ${serverPid} to exit`, maxAttempts: 100, intervalMs: 50 },
    );
    release();
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    await pollUntil(
      async () => {
        try {
          const response = await request(`${url}/-/ready`, { signal: AbortSignal.timeout(500) });
          await response.body.dump();
          return response.statusCode === 200;
        } catch {
          return false;
        }
      },
      (isReady) => isReady,
      { description: `Prometheus on port ${port} to be ready`, maxAttempts: 300, intervalMs: 100 },
    );
  } catch (error) {
    await dispose();
    throw error;
  }

  return {
    url,
    async query(promql) {
      const response = await request(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.body.json()) as { status: string; error?: string; data?: { resultType: string; result: PrometheusSample[] } };
      if (body.status !== "success" || body.data?.resultType !== "vector")
        throw new Error(`Prometheus query ${promql} failed: ${body.error ?? JSON.stringify(body)}`);
      return body.data.result;
    },
    dispose,
  };
}
