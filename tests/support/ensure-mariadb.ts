import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// The GET_LOCK tests run servers of their own from Debian's mariadb-server (10.11 on Debian 12):
// mariadbd, mariadb-install-db, and the metadata_lock_info plugin it ships. Installs the package
// through apt when mariadbd is missing and running as root; otherwise fails with one line saying
// what to install.

export const MARIADBD_BINARY = "/usr/sbin/mariadbd";
export const MARIADB_INSTALL_DB_BINARY = "/usr/bin/mariadb-install-db";
const INSTALL_LINE = "apt-get install -y --no-install-recommends mariadb-server";

let isChecked = false;

export function ensureMariadb(log: (line: string) => void = (line) => process.stderr.write(`[test] ${line}\n`)): void {
  if (isChecked) return;
  if (!existsSync(MARIADBD_BINARY)) {
    const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
    if (!canInstall) throw new Error(`MariaDB is missing (${MARIADBD_BINARY}): install it with \`sudo ${INSTALL_LINE}\``);
    log(`installing Debian's MariaDB server (${INSTALL_LINE})...`);
    for (const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", "--no-install-recommends", "mariadb-server"],
    ]) {
      // Another apt run (another test's set-up) may hold dpkg's lock for a while.
      const result = spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
      if (result.status !== 0) {
        throw new Error(
          `MariaDB is missing and apt-get ${args.join(" ")} failed (${(result.stderr ?? "").trim().split("\n").pop()}): install it with \`${INSTALL_LINE}\``,
        );
      }
    }
  }
  if (!existsSync(MARIADBD_BINARY) || !existsSync(MARIADB_INSTALL_DB_BINARY)) {
    throw new Error(`${MARIADBD_BINARY} or ${MARIADB_INSTALL_DB_BINARY} is missing: install it with \`${INSTALL_LINE}\``);
  }
  if (spawnSync("id", ["-u", "mysql"], { stdio: "ignore" }).status !== 0)
    throw new Error("mariadbd runs as the mysql user, and there is none: install mariadb-server");
  isChecked = true;
}
