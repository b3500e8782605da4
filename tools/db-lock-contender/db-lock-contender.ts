import { startLineProtocolJvm } from "../line-protocol-jvm";
import { ensureCurrentContenderBuilt, ensureDbLockContenderBuilt } from "./build-contender";

// Drives LockContender: one application node with a real ShedLock JdbcLockProvider and a real
// Spring Integration JdbcLockRegistry against PostgreSQL, over stdin and stdout; and
// Spring6Contender, the same for Spring Integration 6.x (its Spring commands only).

export type DbLockLibrary = "shedlock" | "spring";

export type DbLockContender = {
  /** The CLIENT_ID its Spring Integration lock repository writes. */
  clientId: string;
  /** Runs Spring Integration's own schema-postgresql.sql (INT_LOCK and the message store's tables). */
  createSpringSchema(): Promise<void>;
  /**
   * One try: true when it took the lock, false when another node holds it. `ttlMs`: ShedLock's
   * lockAtMostFor, Spring's TTL; `lockAtLeastForMs`: ShedLock's lockAtLeastFor (default 0).
   */
  acquire(library: DbLockLibrary, name: string, ttlMs: number, lockAtLeastForMs?: number): Promise<boolean>;
  release(library: DbLockLibrary, name: string): Promise<void>;
  /** SIGKILL: a crashed node, whose rows stay behind. */
  kill(): Promise<void>;
  /** Closes its stdin: the node exits on its own (its locks stay as they are). */
  close(): Promise<void>;
};

export type DbLockContenderOptions = {
  /** ShedLock's table (default "shedlock"). */
  shedlockTable?: string;
  /** Spring Integration's table prefix (default "INT_": the table INT_LOCK). */
  springPrefix?: string;
  /** The JVM's zone (-Duser.timezone): ShedLock's JDBC provider writes its times in it. Default UTC. */
  timeZone?: string;
  /** The node's name in ShedLock's locked_by (its JdbcTemplateLockProvider's withLockedByValue); default the host's name. */
  lockedBy?: string;
  /** Where Maven's first build says what it does. */
  log?: (line: string) => void;
};

/** The JDBC connection of a postgres:// URL: jdbc url, user, password. */
function jdbcArgs(postgresUrl: string): string[] {
  const url = new URL(postgresUrl);
  return [`jdbc:postgresql://${url.hostname}:${url.port || "5432"}${url.pathname}`, decodeURIComponent(url.username), decodeURIComponent(url.password)];
}

/** Starts a node against `postgresUrl` (postgres://user:password@host:port/database). */
export async function startDbLockContender(postgresUrl: string, options: DbLockContenderOptions = {}): Promise<DbLockContender> {
  const build = await ensureCurrentContenderBuilt({ log: options.log });
  return startContender(build.java, [
    "-Xmx128m",
    "-XX:+UseSerialGC",
    `-Duser.timezone=${options.timeZone ?? "UTC"}`,
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
    `@${build.classpathArgFile}`,
    "baton.dblocks.LockContender",
    ...jdbcArgs(postgresUrl),
    options.shedlockTable ?? "shedlock",
    options.springPrefix ?? "INT_",
    ...(options.lockedBy !== undefined ? [options.lockedBy] : []),
  ]);
}

/**
 * Starts a Spring Integration 6.5.6 node whose connections use `schema` (where createSpringSchema
 * puts its INT_LOCK) and whose registry's TTL is `ttlMs` (6.x keeps it in the application: the
 * figure of acquire() is ignored). Only the "spring" library.
 */
export async function startSpring6Contender(postgresUrl: string, options: { schema: string; ttlMs: number }): Promise<DbLockContender> {
  const build = (await ensureDbLockContenderBuilt()).spring6;
  return startContender(build.java, [
    "-Duser.timezone=UTC",
    `@${build.classpathArgFile}`,
    "baton.dblocks.Spring6Contender",
    ...jdbcArgs(postgresUrl),
    options.schema,
    String(Math.trunc(options.ttlMs)),
  ]);
}

async function startContender(java: string, args: string[]): Promise<DbLockContender> {
  const jvm = startLineProtocolJvm(java, args, "the lock-table contender");
  const { command } = jvm;

  const ready = await jvm.next((line) => line.startsWith("ready "));
  const about = (library: string, name: string) => (line: string) => {
    const [, lib, lockName] = line.split(" ");
    return lib === library && lockName === name;
  };
  return {
    clientId: ready.slice("ready ".length),
    async createSpringSchema() {
      await command("spring-schema", (line) => line === "done spring-schema" || line.startsWith("error spring-schema"));
    },
    async acquire(library, name, ttlMs, lockAtLeastForMs) {
      const atLeast = lockAtLeastForMs === undefined ? "" : ` ${Math.trunc(lockAtLeastForMs)}`;
      const answer = await command(`${library} acquire ${name} ${Math.trunc(ttlMs)}${atLeast}`, about(library, name));
      return answer.startsWith("acquired ");
    },
    async release(library, name) {
      await command(`${library} release ${name}`, about(library, name));
    },
    kill: () => jvm.kill(),
    close: () => jvm.close(),
  };
}
