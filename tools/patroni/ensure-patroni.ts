import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// Patroni from Debian (3.0.2 on Debian 12) with the driver of the store it runs on (python3-etcd
// for etcd v3, python3-kazoo for ZooKeeper), and PostgreSQL 15's server binaries, which Patroni
// starts. Installs what is missing through apt when running as root; otherwise, or when apt
// fails, fails with one line naming the packages to install.

export const PATRONI_BINARY = "/usr/bin/patroni";
export const PATRONICTL_BINARY = "/usr/bin/patronictl";
export const POSTGRES_BIN_DIR = "/usr/lib/postgresql/15/bin";

/** The store Patroni keeps its cluster in (its DCS), with the Debian package of its Python driver. */
export type PatroniDcs = "etcd3" | "zookeeper";

const DRIVERS: Record<PatroniDcs, { module: string; package: string }> = {
  etcd3: { module: "etcd", package: "python3-etcd" },
  zookeeper: { module: "kazoo", package: "python3-kazoo" },
};

const checked = new Set<PatroniDcs>();

function installLine(dcs: PatroniDcs): string {
  return `apt-get install -y --no-install-recommends patroni ${DRIVERS[dcs].package}`;
}

function hasPatroni(dcs: PatroniDcs): boolean {
  if (!existsSync(PATRONI_BINARY) || !existsSync(PATRONICTL_BINARY)) return false;
  // Debian's patroni only recommends its drivers, without which the DCS module does not load
  // (asked of the system Python Patroni runs on, not whichever python3 is first on the PATH).
  return spawnSync("/usr/bin/python3", ["-c", `import ${DRIVERS[dcs].module}`], { stdio: "ignore" }).status === 0;
}

export function ensurePatroni(dcs: PatroniDcs = "etcd3", log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (checked.has(dcs)) return;
  if (!existsSync(`${POSTGRES_BIN_DIR}/postgres`))
    throw new Error(`PostgreSQL 15 is missing (${POSTGRES_BIN_DIR}/postgres): install it with \`apt-get install -y postgresql-15\``);
  const line = installLine(dcs);
  if (!hasPatroni(dcs)) {
    const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
    if (!canInstall) throw new Error(`Patroni or ${DRIVERS[dcs].package} is missing: install it with \`sudo ${line}\``);
    log(`installing Debian's Patroni with ${DRIVERS[dcs].package} (${line})...`);
    for (const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", "--no-install-recommends", "patroni", DRIVERS[dcs].package],
    ]) {
      // Another apt run (another test's set-up) may hold dpkg's lock for a while.
      const result = spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
      if (result.status !== 0)
        throw new Error(
          `Patroni or ${DRIVERS[dcs].package} is missing and apt-get ${args.join(" ")} failed (${(result.stderr ?? "").trim().split("\n").pop()}): install it with \`${line}\``,
        );
    }
    if (!hasPatroni(dcs))
      throw new Error(`apt-get installed Patroni but ${PATRONI_BINARY} or ${DRIVERS[dcs].package} is not usable: install it with \`${line}\``);
  }
  if (spawnSync("id", ["-u", "postgres"], { stdio: "ignore" }).status !== 0)
    throw new Error("Patroni runs as the postgres user, and there is none: install postgresql-15");
  checked.add(dcs);
}
