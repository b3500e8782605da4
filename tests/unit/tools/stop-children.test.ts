import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

import { describe, expect, it } from "vitest";

import { stopChildren } from "@/tools/stop-children";

/** A Node child that says "ready" once its SIGTERM handler is in place; ignoring SIGTERM when asked to. */
async function startChild(isIgnoringSigterm: boolean): Promise<ChildProcess> {
  const script = `${isIgnoringSigterm ? 'process.on("SIGTERM", () => {});' : ""} console.log("ready"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  await once(child.stdout!, "data");
  return child;
}

describe("stopChildren", () => {
  it("kills a child that does not stop within the grace period, and says so", async () => {
    const stubborn = await startChild(true);
    const lines: string[] = [];
    await stopChildren([{ name: "the web server", process: stubborn }], { graceMs: 200, log: (line) => lines.push(line) });
    expect(stubborn.signalCode).toBe("SIGKILL");
    expect(lines).toEqual(["the web server did not stop within 0.2 s of SIGTERM: killed"]);
  });

  it("lets a child that stops on SIGTERM stop by itself, silently, and returns at once for one that already exited", async () => {
    const polite = await startChild(false);
    const lines: string[] = [];
    await stopChildren([{ name: "the worker", process: polite }], { graceMs: 60_000, log: (line) => lines.push(line) });
    expect(polite.signalCode).toBe("SIGTERM");
    await stopChildren([{ name: "the worker", process: polite }], { graceMs: 60_000, log: (line) => lines.push(line) });
    expect(lines).toEqual([]);
  });
});
