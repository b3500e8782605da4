import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const FAKETIME = "/usr/bin/faketime";

/**
 * The clock tests move the whole process tree's clock with libfaketime (Debian's `faketime`).
 * Installs it through apt when missing and running as root; otherwise fails with one line.
 */
export function ensureFaketime(log: (line: string) => void): string {
  if (existsSync(FAKETIME)) return FAKETIME;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) throw new Error("faketime is missing: install it with `sudo apt-get install -y faketime`");
  log("installing Debian's faketime for the clock tests (apt-get install faketime)...");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "faketime"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: ${(result.stderr ?? "").trim().split("\n").pop()}`);
  }
  if (!existsSync(FAKETIME)) throw new Error(`apt-get installed faketime but ${FAKETIME} is not there`);
  return FAKETIME;
}
