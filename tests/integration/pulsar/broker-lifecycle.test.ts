import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";

import { pollUntil } from "@/tests/support/pulsar";
import { requestAdmin } from "@/tools/pulsar/admin-http";
import { createPartitionedTopic, createScratchNamespace } from "@/tools/pulsar/admin-setup";
import { startBroker, type BrokerHandle } from "@/tools/pulsar/broker";

// These tests start brokers of their own (the shared one must not be stopped under other tests).

/** Alive and not a zombie waiting to be reaped. */
function isProcessAlive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== undefined && state !== "Z";
  } catch {
    // No /proc entry: the process is gone.
    return false;
  }
}

const started: BrokerHandle[] = [];
afterAll(async () => {
  for (const broker of started) await broker.stop();
});

describe("a broker of its own", () => {
  it("refuses a busy port, restarts on the same ports and data dir keeping its topics, and stop() ends the JVM and removes the temp dir", async () => {
    const broker = await startBroker();
    started.push(broker);
    await expect(startBroker({ webPort: broker.webPort })).rejects.toThrow(`port ${broker.webPort} on 127.0.0.1 is in use`);
    const scratch = await createScratchNamespace(broker.adminUrl, "lifecycle");
    const topic = scratch.topic("kept");
    await createPartitionedTopic(broker.adminUrl, topic, 3);
    const firstPid = broker.pid;

    await broker.restart();

    expect(broker.pid).not.toBe(firstPid);
    expect(isProcessAlive(firstPid)).toBe(false);
    const metadata = await requestAdmin(broker.adminUrl, "GET", `/admin/v2/persistent/${scratch.namespace}/kept/partitions`);
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.text)).toMatchObject({ partitions: 3 });

    const secondPid = broker.pid;
    await broker.stop();
    expect(isProcessAlive(secondPid)).toBe(false);
    expect(broker.isRunning()).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
    await expect(broker.start()).rejects.toThrow(/was removed/);
  });

  it("its JVM exits when the Node process that started it is killed with SIGKILL", async () => {
    // A child Node process starts a broker, reports it, and is then killed without any chance
    // to stop it: only the launcher's stdin watchdog can end the JVM.
    const script = [
      `const { startBroker } = require(${JSON.stringify(path.resolve("tools/pulsar/broker.ts"))});`,
      "startBroker().then(",
      "  (broker) => { console.log(JSON.stringify({ pid: broker.pid, dataDir: broker.dataDir })); setInterval(() => undefined, 60_000); },",
      "  (error) => { console.error(error); process.exit(1); },",
      ");",
    ].join("\n");
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", script], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`the child exited (${code}) before reporting its broker`)));
    });
    const { pid, dataDir } = JSON.parse(firstLine) as { pid: number; dataDir: string };
    try {
      expect(isProcessAlive(pid)).toBe(true);
      child.kill("SIGKILL");
      const { attempts } = await pollUntil(
        async () => isProcessAlive(pid),
        (alive) => !alive,
        {
          maxAttempts: 150,
          intervalMs: 200,
          description: `the orphaned JVM ${pid} exiting`,
        },
      );
      expect(attempts).toBeGreaterThanOrEqual(1);
    } finally {
      if (isProcessAlive(pid)) process.kill(-pid, "SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
