import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// The etcd tests run Debian's etcd 3.4 (`etcd-server`) and its `etcdctl` (`etcd-client`), the
// contenders Go services are modelled on. Installs them through apt when missing and running as
// root; otherwise fails with one line saying what to install.

export const ETCD_BINARY = "/usr/bin/etcd";
export const ETCDCTL_BINARY = "/usr/bin/etcdctl";

let isChecked = false;

export function ensureEtcd(log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (isChecked || (existsSync(ETCD_BINARY) && existsSync(ETCDCTL_BINARY))) {
    isChecked = true;
    return;
  }
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) throw new Error("etcd is missing: install it with `sudo apt-get install -y etcd-server etcd-client`");
  log("installing Debian's etcd (apt-get install etcd-server etcd-client)...");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "etcd-server", "etcd-client"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed: ${(result.stderr ?? "").trim().split("\n").pop()}`);
  }
  if (!existsSync(ETCD_BINARY) || !existsSync(ETCDCTL_BINARY)) throw new Error("apt-get installed etcd but /usr/bin/etcd or /usr/bin/etcdctl is not there");
  // Debian's package enables a systemd unit; without systemd (containers, CI) nothing runs, and
  // the tests start their own servers on free ports either way.
  isChecked = true;
}
