import mysql from "mysql2/promise";

import { describeServer } from "./database-config";

// One connection per MariaDB/MySQL source, opened at the first read and replaced after a failure
// of the connection itself (an SQL error, such as a grant missing, keeps it). Each connection is
// set up once: read-only (SET SESSION TRANSACTION READ ONLY: Baton takes no lock and writes
// nothing) and with a statement timeout for every statement it sends. MariaDB's is
// max_statement_time (seconds, every statement); MySQL has no such variable, and its
// max_execution_time (milliseconds) bounds read-only SELECTs, which is all Baton sends. Which
// one is set follows the server's own VERSION(), not the configured engine, so a MariaDB server
// configured as "mysql" (or the reverse) is still bounded. The client's own timeout bounds a
// server that stopped answering (a statement timeout is the server's, and needs a server that
// answers).

export type ServerFlavor = "mariadb" | "mysql";

/** What the connection found the server to be, and who Baton is on it. */
export type MysqlServer = { flavor: ServerFlavor; version: string; user: string };

/** A row as the server answered it: read by the callers' parsers, never cast. */
export type MysqlRow = Record<string, unknown>;

export type MysqlConnection = {
  /** Runs one statement (its `?` values escaped by the client) on the connection. */
  read(sql: string, values?: unknown[]): Promise<MysqlRow[]>;
  /** The server the current connection is on (connecting first when there is none). */
  server(): Promise<MysqlServer>;
  close(): Promise<void>;
};

type Session = { connection: mysql.Connection; server: MysqlServer };

/** The server's flavour from VERSION(): "10.11.19-MariaDB-0+deb12u1" is MariaDB. */
export function flavorOf(version: string): ServerFlavor {
  return /mariadb/i.test(version) ? "mariadb" : "mysql";
}

/** The SET that bounds every statement of a session, for the server's flavour. */
export function statementTimeoutSql(flavor: ServerFlavor, statementTimeoutMs: number): string {
  // Literals: SET takes no parameters. The figure is an integer the schema checked.
  const ms = Math.trunc(statementTimeoutMs);
  return flavor === "mariadb" ? `SET SESSION max_statement_time = ${ms / 1000}` : `SET SESSION max_execution_time = ${ms}`;
}

/** Whether an error broke the connection (rather than being the server's answer to one statement). */
function isConnectionFailure(error: unknown): boolean {
  const failure = error as { fatal?: boolean; sqlState?: string };
  return failure.fatal === true || typeof failure.sqlState !== "string";
}

export function openMysqlConnection(
  config: { url: string; statementTimeoutMs: number; connectTimeoutMs: number },
  onIdleError: (error: Error) => void,
): MysqlConnection {
  const url = new URL(config.url);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  const options: mysql.ConnectionOptions = {
    host: url.hostname,
    port: url.port === "" ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(database === "" ? {} : { database }),
    connectTimeout: config.connectTimeoutMs,
    // Connection ids and the servers' timers are BIGINT UNSIGNED: as text, never rounded.
    supportBigNumbers: true,
    bigNumberStrings: true,
    multipleStatements: false,
  };
  // The server's timeout plus the connection's round trips: beyond it the server is not answering.
  const timeout = config.statementTimeoutMs + config.connectTimeoutMs;
  /** The session being opened or open; null after a failure, so that the next read connects again. */
  let current: Promise<Session> | null = null;
  /** The connection of `current` once it opened: what a failure compares against. */
  let open: mysql.Connection | null = null;

  async function connect(): Promise<Session> {
    const connection = await mysql.createConnection(options);
    // A connection lost while idle (the server restarted, KILL) must not crash the process: the next read connects again.
    connection.on("error", (error: Error) => {
      discard(connection);
      onIdleError(error);
    });
    try {
      const [rows] = await connection.query({ sql: "SELECT VERSION() AS version, CURRENT_USER() AS user", timeout });
      const row = (Array.isArray(rows) ? rows[0] : undefined) as MysqlRow | undefined;
      const version = String(row?.version ?? "");
      const server: MysqlServer = { flavor: flavorOf(version), version, user: String(row?.user ?? "") };
      await connection.query({ sql: statementTimeoutSql(server.flavor, config.statementTimeoutMs), timeout });
      await connection.query({ sql: "SET SESSION TRANSACTION READ ONLY", timeout });
      open = connection;
      return { connection, server };
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  function discard(connection: mysql.Connection): void {
    connection.destroy();
    if (open !== connection) return;
    open = null;
    current = null;
  }

  function session(): Promise<Session> {
    if (current === null) {
      const opening = connect();
      current = opening;
      opening.catch(() => {
        if (current === opening) current = null;
      });
    }
    return current;
  }

  return {
    async read(sql, values = []) {
      const { connection } = await session();
      try {
        const [rows] = await connection.query({ sql, values, timeout });
        if (!Array.isArray(rows)) throw new Error("the server answered a read without rows");
        return rows as MysqlRow[];
      } catch (error) {
        if (isConnectionFailure(error)) discard(connection);
        throw error;
      }
    },
    server: async () => (await session()).server,
    async close() {
      const opened = current;
      current = null;
      open = null;
      const session = await opened?.catch(() => null);
      await session?.connection.end().catch(() => session.connection.destroy());
    },
  };
}

/** MariaDB's and MySQL's error numbers this module names. */
const ER = {
  DBACCESS_DENIED: 1044,
  ACCESS_DENIED: 1045,
  BAD_DB: 1049,
  SERVER_SHUTDOWN: 1053,
  TABLEACCESS_DENIED: 1142,
  SPECIFIC_ACCESS_DENIED: 1227,
  MARIADB_STATEMENT_TIMEOUT: 1969,
  MYSQL_QUERY_TIMEOUT: 3024,
} as const;

/** What a failed read says, in one line naming the setting that is likely wrong. */
export function describeMysqlError(error: unknown, config: { name: string; url: string; engine: string }): string {
  const failure = error as { code?: string; errno?: number; sqlState?: string; message?: string };
  const label = config.engine === "mysql" ? "MySQL" : "MariaDB";
  let where: string;
  try {
    where = `${label} ${describeServer(config.url)} (clusters "${config.name}" url)`;
  } catch {
    where = `${label} (clusters "${config.name}" url)`;
  }
  const message = (failure.message ?? String(error)).split("\n")[0] ?? "";
  const errno = typeof failure.sqlState === "string" ? failure.errno : undefined;
  if (failure.code === "ECONNREFUSED") return `${where}: connection refused (is the url's host and port right, and the server running?)`;
  if (failure.code === "ENOTFOUND" || failure.code === "EAI_AGAIN") return `${where}: host not found`;
  if (failure.code === "ECONNRESET" || failure.code === "EPIPE" || failure.code === "PROTOCOL_CONNECTION_LOST" || errno === ER.SERVER_SHUTDOWN) {
    return `${where}: the connection was closed (${message})`;
  }
  if (errno === ER.MARIADB_STATEMENT_TIMEOUT || errno === ER.MYSQL_QUERY_TIMEOUT) return `${where}: the read ran past statementTimeoutMs (${message})`;
  if (errno === ER.ACCESS_DENIED) return `${where}: authentication failed (the url's user and password): ${message}`;
  if (errno === ER.BAD_DB || errno === ER.DBACCESS_DENIED) return `${where}: the url's database cannot be used (${message})`;
  if (errno === ER.TABLEACCESS_DENIED || errno === ER.SPECIFIC_ACCESS_DENIED) return `${where}: permission denied to the url's user (${message})`;
  if (failure.code === "ETIMEDOUT" || failure.code === "PROTOCOL_SEQUENCE_TIMEOUT" || /timeout|timed out/i.test(message)) {
    return `${where}: no answer in time (connectTimeoutMs, statementTimeoutMs): ${message}`;
  }
  return `${where}: ${failure.code ? `${failure.code} ` : ""}${message}`;
}
