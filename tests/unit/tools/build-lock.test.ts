import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { withBuildLock } from "@/tools/maven/build-lock";

// One Maven build of a project at a time across processes (tools/maven/build-lock.ts).

const dirs: string[] = [];
function lockPathIn(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-build-lock-"));
  dirs.push(dir);
  return path.join(dir, "baton-build.lock");
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("withBuildLock", () => {
  it("runs two builds of one project in turn, and removes the lock after each", async () => {
    const lockPath = lockPathIn();
    const steps: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const firstMayEnd = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let secondWaited: () => void = () => undefined;
    const secondIsWaiting = new Promise<void>((resolve) => {
      secondWaited = resolve;
    });
    const first = withBuildLock(lockPath, async () => {
      steps.push("first starts");
      await firstMayEnd;
      steps.push("first ends");
    });
    const second = withBuildLock(
      lockPath,
      async () => {
        steps.push("second starts");
      },
      { pollMs: 10, onWait: (pid) => (pid === process.pid ? secondWaited() : undefined) },
    );
    await secondIsWaiting;
    expect(steps).toEqual(["first starts"]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(steps).toEqual(["first starts", "first ends", "second starts"]);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("waits for a live process holding the lock, and takes over one whose process is gone", async () => {
    const lockPath = lockPathIn();
    const holder = spawn("sleep", ["60"]);
    try {
      writeFileSync(lockPath, String(holder.pid));
      let ran = false;
      let waitedFor: number | null = null;
      let building: Promise<void> = Promise.resolve();
      const waited = new Promise<void>((resolve) => {
        const build = withBuildLock(
          lockPath,
          async () => {
            ran = true;
          },
          {
            pollMs: 10,
            onWait: (pid) => {
              waitedFor = pid;
              resolve();
            },
          },
        );
        building = build;
      });
      await waited;
      expect(waitedFor).toBe(holder.pid);
      expect(ran).toBe(false);
      holder.kill("SIGKILL");
      await building;
      expect(ran).toBe(true);
    } finally {
      holder.kill("SIGKILL");
    }

    // A lock left by a process that has exited: taken over at once.
    const exited = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    writeFileSync(lockPath, exited.stdout.trim());
    await expect(withBuildLock(lockPath, async () => "built", { onWait: () => expect.fail("waited for a process that is gone") })).resolves.toBe("built");
  });
});
