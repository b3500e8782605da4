import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// The metrics tests run Debian's Prometheus (`prometheus`) as a real scraper of Baton's /metrics.
// Installs it through apt when missing and running as root; otherwise fails with one line
// saying what to install.

export const PROMETHEUS_BINARY = "/usr/bin/prometheus";

let isChecked = false;

export function ensurePrometheus(log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (isChecked || existsSync(PROMETHEUS_BINARY)) {
    isChecked = true;
    return;
  }
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) throw new Error("Prometheus is missing: install it with `sudo apt-get install -y prometheus`");
  log("installing Debian's Prometheus for the metrics tests (apt-get install prometheus)...");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "prometheus"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: ${(result.stderr ?? "").trim().split("\n").pop()}`);
  }
  if (!existsSync(PROMETHEUS_BINARY)) throw new Error("apt-get installed prometheus but /usr/bin/prometheus is not there");
  // Debian's package enables a systemd unit; without systemd (containers, CI) nothing runs, and
  // the tests start their own server on a free port either way.
  isChecked = true;
}
