import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// Patroni from Debian (3.0.2 on Debian 12) with its etcd v3 driver's dependency (python3-etcd),
// and PostgreSQL 15's server binaries, which Patroni starts. Installs Patroni through apt when
// missing and running as root; otherwise fails with one line saying what to install.

export const PATRONI_BINARY = "/usr/bin/patroni";
export const PATRONICTL_BINARY = "/usr/bin/patronictl";
export const POSTGRES_BIN_DIR = "/usr/lib/postgresql/15/bin";

const INSTALL_LINE = "apt-get install -y --no-install-recommends patroni python3-etcd";

let isChecked = false;

function hasPatroni(): boolean {
  if (!existsSync(PATRONI_BINARY) || !existsSync(PATRONICTL_BINARY)) return false;
  // Debian's patroni only recommends python3-etcd, without which its etcd3 driver does not load
  // (asked of the system Python Patroni runs on, not whichever python3 is first on the PATH).
  return spawnSync("/usr/bin/python3", ["-c", "import etcd"], { stdio: "ignore" }).status === 0;
}

export function ensurePatroni(log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (isChecked) return;
  if (!existsSync(`${POSTGRES_BIN_DIR}/postgres`))
    throw new Error(`PostgreSQL 15 is missing (${POSTGRES_BIN_DIR}/postgres): install it with \`apt-get install -y postgresql-15\``);
  if (!hasPatroni()) {
    const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
    if (!canInstall) throw new Error(`Patroni is missing: install it with \`sudo ${INSTALL_LINE}\``);
    log(`installing Debian's Patroni (${INSTALL_LINE})...`);
    for (const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", "--no-install-recommends", "patroni", "python3-etcd"],
    ]) {
      // Another apt run (another test's set-up) may hold dpkg's lock for a while.
      const result = spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
      if (result.status !== 0)
        throw new Error(
          `Patroni is missing and apt-get ${args.join(" ")} failed (${(result.stderr ?? "").trim().split("\n").pop()}): install it with \`${INSTALL_LINE}\``,
        );
    }
    if (!hasPatroni()) throw new Error(`apt-get installed Patroni but ${PATRONI_BINARY} or python3-etcd is not usable: install it with \`${INSTALL_LINE}\``);
  }
  if (spawnSync("id", ["-u", "postgres"], { stdio: "ignore" }).status !== 0)
    throw new Error("Patroni runs as the postgres user, and there is none: install postgresql-15");
  isChecked = true;
}
