import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/**
 * Playwright cannot download its own browser here; the e2e tests use Debian's Chromium.
 * Installs it through apt when missing and running as root; otherwise fails with one line.
 */
export function ensureChromium(log: (line: string) => void): string {
  const configured = process.env.BATON_CHROMIUM;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`BATON_CHROMIUM names ${configured}, which does not exist`);
    return configured;
  }
  if (existsSync(DEFAULT_CHROMIUM)) return DEFAULT_CHROMIUM;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) throw new Error("Chromium is missing: install it with `sudo apt-get install -y chromium`, or set BATON_CHROMIUM to a Chromium binary");
  log("installing Debian's Chromium for the browser tests (apt-get install chromium)...");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "chromium"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: ${(result.stderr ?? "").trim().split("\n").pop()}`);
  }
  if (!existsSync(DEFAULT_CHROMIUM)) throw new Error("apt-get installed chromium but /usr/bin/chromium is not there; set BATON_CHROMIUM");
  return DEFAULT_CHROMIUM;
}
