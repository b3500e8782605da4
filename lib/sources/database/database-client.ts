import pg from "pg";

import { describeServer } from "./database-config";

// One connection per source (a pool of one: a broken connection is replaced at the next read).
// Every read runs in a read-only transaction with a statement timeout of its own; Baton takes no
// lock and writes nothing. The client's own query timeout also bounds a server that stopped
// answering (a statement timeout is the server's, and needs a server that answers).

export type DatabaseConnection = {
  /**
   * Runs `sql` in a read-only transaction with SET LOCAL statement_timeout (and SET LOCAL
   * TimeZone with `timeZone`: how TIMESTAMP columns written without a zone read as instants).
   */
  read<R extends pg.QueryResultRow>(sql: string, values: unknown[], options?: { timeZone?: string }): Promise<R[]>;
  close(): Promise<void>;
};

export function openDatabaseConnection(
  config: { url: string; statementTimeoutMs: number; connectTimeoutMs: number },
  onIdleError: (error: Error) => void,
): DatabaseConnection {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: 1,
    connectionTimeoutMillis: config.connectTimeoutMs,
    // The server's timeout plus the connection's round trips: beyond it the server is not answering.
    query_timeout: config.statementTimeoutMs + config.connectTimeoutMs,
    application_name: "baton-observer",
    idleTimeoutMillis: 0,
    keepAlive: true,
  });
  // A connection lost while idle (the server restarted) must not crash the process: the next read reconnects.
  pool.on("error", onIdleError);
  const timeoutMs = Math.trunc(config.statementTimeoutMs);
  return {
    async read<R extends pg.QueryResultRow>(sql: string, values: unknown[], options: { timeZone?: string } = {}) {
      const client = await pool.connect();
      try {
        // Literals: SET takes no parameters. The figure is an integer the schema checked; the
        // zone a name the schema checked to hold only letters, digits, "_", "+", "-" and "/".
        const zone = options.timeZone === undefined ? "" : `; SET LOCAL TimeZone = '${options.timeZone.replaceAll("'", "")}'`;
        await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeoutMs}${zone}`);
        const result = await client.query<R>(sql, values);
        await client.query("COMMIT");
        client.release();
        return result.rows;
      } catch (error) {
        // The connection is discarded rather than reused: its transaction may still be open.
        client.release(error as Error);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

/** What a failed read says, in one line naming the setting that is likely wrong. */
export function describeDatabaseError(error: unknown, config: { name: string; url: string }): string {
  const failure = error as { code?: string; message?: string };
  let where: string;
  try {
    where = `PostgreSQL ${describeServer(config.url)} (clusters "${config.name}" url)`;
  } catch {
    where = `PostgreSQL (clusters "${config.name}" url)`;
  }
  const message = (failure.message ?? String(error)).split("\n")[0] ?? "";
  if (failure.code === "ECONNREFUSED") return `${where}: connection refused (is the url's host and port right, and the server running?)`;
  if (failure.code === "ENOTFOUND" || failure.code === "EAI_AGAIN") return `${where}: host not found`;
  if (failure.code === "ECONNRESET" || /terminat|Connection terminated/i.test(message)) return `${where}: the connection was closed (${message})`;
  if (failure.code === "57014") return `${where}: the read ran past statementTimeoutMs (${message})`;
  if (failure.code === "28P01" || failure.code === "28000") return `${where}: authentication failed (the url's role and password): ${message}`;
  if (failure.code === "3D000") return `${where}: the url's database does not exist (${message})`;
  if (failure.code === "42501") return `${where}: permission denied to the url's role (${message})`;
  if (/timeout/i.test(message)) return `${where}: no answer in time (connectTimeoutMs, statementTimeoutMs): ${message}`;
  return `${where}: ${failure.code ? `${failure.code} ` : ""}${message}`;
}
