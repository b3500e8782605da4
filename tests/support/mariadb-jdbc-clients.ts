import path from "node:path";
import { fileURLToPath } from "node:url";

import type { MariadbServer } from "@/tests/support/mariadb-servers";
import { startLineProtocolJvm } from "@/tools/line-protocol-jvm";
import { ensureMavenBuilt, type MavenBuild } from "@/tools/maven/ensure-maven-built";

// Drives tests/support/mariadb-jdbc's GetLockClient: one connection of MariaDB Connector/J 3.5
// (the driver a Java service takes GET_LOCK with), one JVM per client, so that SIGKILL is a
// service's crash and its connection is left for the server to find gone.

export const MARIADB_JDBC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "mariadb-jdbc");

export function ensureMariadbJdbcClientBuilt(options: { log?: (line: string) => void } = {}): Promise<MavenBuild> {
  return ensureMavenBuilt(MARIADB_JDBC_DIR, "the MariaDB Connector/J test client", options);
}

export type JdbcGetLockClient = {
  connectionId: number;
  /** Baton's name for its connection: `<USER()> conn <id>`. */
  label: string;
  /** GET_LOCK(name, timeoutSeconds): true once it holds it (a queued call resolves when granted), false on its timeout. */
  lock(name: string, timeoutSeconds: number): Promise<boolean>;
  /** RELEASE_LOCK(name): 1 released, 0 held by another, null no such lock. */
  release(name: string): Promise<number | null>;
  /** SIGKILL: the service crashed; the server ends its connection, and its locks with it. */
  kill(): Promise<void>;
  /** Closes the connection and exits. */
  close(): Promise<void>;
};

/** A client connected to `server` as `user` over TCP (as a service connects). */
export async function startJdbcGetLockClient(server: MariadbServer, user: string, password: string): Promise<JdbcGetLockClient> {
  const build = await ensureMariadbJdbcClientBuilt({ log: (line) => process.stderr.write(`[mariadb-jdbc] ${line}\n`) });
  const jvm = startLineProtocolJvm(
    build.java,
    [
      "-Xmx64m",
      "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1",
      `@${build.classpathArgFile}`,
      "baton.mariadb.GetLockClient",
      `jdbc:mariadb://127.0.0.1:${server.port}/`,
      user,
      password,
    ],
    "the MariaDB JDBC client",
  );
  const [, id, userHost] = (await jvm.next((line) => line.startsWith("ready "))).split(" ");
  const about = (name: string) => (line: string) => line.split(" ")[1] === name;
  return {
    connectionId: Number(id),
    label: `${userHost} conn ${id}`,
    async lock(name, timeoutSeconds) {
      return (await jvm.command(`lock ${name} ${Math.trunc(timeoutSeconds)}`, about(name))).startsWith("locked ");
    },
    async release(name) {
      const answer = (await jvm.command(`release ${name}`, about(name))).split(" ")[2];
      return answer === "null" ? null : Number(answer);
    },
    kill: () => jvm.kill(),
    close: () => jvm.close(),
  };
}
