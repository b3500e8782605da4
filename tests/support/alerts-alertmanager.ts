import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { findFreePort } from "@/tools/free-port";
import { guardProcessGroup, signalProcessGroup } from "@/tools/pulsar/process-guard";
import { pollUntil } from "@/tests/support/poll-until";

// A test-owned Alertmanager (Debian's `prometheus-alertmanager`, 0.25): installed through apt
// when missing and running as root (otherwise one line says how), started on a free port with a
// temporary storage directory in its own process group, and killed with the test process.

export const ALERTMANAGER_BINARY = "/usr/bin/prometheus-alertmanager";

export function ensureAlertmanager(log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (existsSync(ALERTMANAGER_BINARY)) return;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) throw new Error("Alertmanager is missing: install it with `sudo apt-get install -y prometheus-alertmanager`");
  log("installing Debian's Alertmanager for the alerting tests (apt-get install prometheus-alertmanager)...");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "prometheus-alertmanager"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: ${(result.stderr ?? "").trim().split("\n").pop()}`);
  }
  if (!existsSync(ALERTMANAGER_BINARY)) throw new Error(`apt-get installed prometheus-alertmanager but ${ALERTMANAGER_BINARY} is not there`);
}

/** An alert as Alertmanager's `GET /api/v2/alerts` lists it. */
export type ListedAlert = {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  status: { state: string };
};

export type TestAlertmanager = {
  url: string;
  /** Alertmanager's alerts, resolved ones included. */
  listAlerts(): Promise<ListedAlert[]>;
  dispose(): Promise<void>;
};

/** With `webhookUrl`, Alertmanager notifies it of every group (firing and resolved) at once. */
export async function startAlertmanager(options: { webhookUrl?: string } = {}): Promise<TestAlertmanager> {
  ensureAlertmanager();
  const port = await findFreePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-alertmanager-"));
  const configFile = path.join(dir, "alertmanager.yml");
  const receiver = options.webhookUrl
    ? `  - name: test\n    webhook_configs:\n      - url: ${options.webhookUrl}\n        send_resolved: true\n`
    : "  - name: test\n";
  writeFileSync(
    configFile,
    `route:\n  receiver: test\n  group_by: ['...']\n  group_wait: 0s\n  group_interval: 1s\n  repeat_interval: 1h\nreceivers:\n${receiver}`,
  );
  const url = `http://127.0.0.1:${port}`;
  const args = [
    "--config.file",
    configFile,
    "--storage.path",
    path.join(dir, "data"),
    "--web.listen-address",
    `127.0.0.1:${port}`,
    "--cluster.listen-address=",
    "--log.level=warn",
  ];
  // A shell beside it kills it when our end of its stdin closes (this process died, even of SIGKILL).
  const child = spawn("sh", ["-c", `"${ALERTMANAGER_BINARY}" "$@" 2>/dev/null & server=$!; cat >/dev/null; kill -9 "$server"`, "alertmanager-guard", ...args], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  if (child.pid === undefined) throw new Error("could not start a shell for Alertmanager");
  const groupId = child.pid;
  child.stdin!.on("error", () => undefined);
  child.unref();
  const release = guardProcessGroup(groupId, { removeOnExit: dir });
  const dispose = async () => {
    signalProcessGroup(groupId, "SIGKILL");
    release();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil(
      async () => {
        try {
          const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(500) });
          return response.ok;
        } catch {
          return false;
        }
      },
      (isReady) => isReady,
      { description: `Alertmanager on port ${port} to be ready`, maxAttempts: 200, intervalMs: 100 },
    );
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    url,
    async listAlerts() {
      const response = await fetch(`${url}/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true`);
      return (await response.json()) as ListedAlert[];
    },
    dispose,
  };
}
