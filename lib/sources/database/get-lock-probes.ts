import type { GetLockProbes, PerformanceSchemaProbe, PluginProbe } from "./get-lock-mode";
import type { MysqlConnection, ServerFlavor } from "./mysql-client";

// What a MariaDB/MySQL server offers the url's user for reading GET_LOCK locks (get-lock-mode.ts
// chooses from it), and when the server started. Asked at each discovery and after each failed
// read: a restart may have turned performance_schema off, a GRANT may have been revoked, the
// plugin installed. Each probe is a read of its own, so that a refusal says which one.

const PERFORMANCE_SCHEMA_SQL = "SELECT @@performance_schema AS performance_schema";
const INSTRUMENT_SQL = "SELECT ENABLED AS enabled FROM performance_schema.setup_instruments WHERE NAME = 'wait/lock/metadata/sql/mdl'";
/** The very tables the read joins, read for nothing: whether the user may. */
const METADATA_LOCKS_SQL = "SELECT 1 FROM performance_schema.metadata_locks m JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID LIMIT 0";
const PLUGIN_SQL = "SELECT 1 FROM information_schema.METADATA_LOCK_INFO LIMIT 0";
/** PROCESS of the url's user: USER_PRIVILEGES lists each global privilege of each account (GRANTEE `'baton'@'%'`). */
const PROCESS_SQL = `
SELECT COUNT(*) AS has_process FROM information_schema.USER_PRIVILEGES
WHERE PRIVILEGE_TYPE = 'PROCESS'
  AND GRANTEE = CONCAT('''', SUBSTRING(CURRENT_USER(), 1, CHAR_LENGTH(CURRENT_USER()) - CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1),
                       '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')`;
/**
 * When the server started, in seconds: the statement's start less its uptime, both the server's
 * own whole seconds of one instant (Uptime is the statement's start less the server's), so the
 * figure is the same at every read. MySQL 8 keeps its status in performance_schema only.
 */
const STARTED_SQL = {
  mariadb: "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE AS started_at FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'",
  mysql: "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE AS started_at FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'",
} as const;
/** Where that table is refused: SHOW needs no grant; its uptime is then set against Baton's clock. */
const UPTIME_SQL = "SHOW GLOBAL STATUS LIKE 'Uptime'";

/** MariaDB's and MySQL's "unknown table" (ER_UNKNOWN_TABLE; MySQL 8 answers ER_NO_SUCH_TABLE, 1146, for information_schema too). */
const UNKNOWN_TABLE = new Set([1109, 1146]);
/** Refusals: database, table, column access denied, and "you need (at least one of) the ... privilege". */
const DENIED = new Set([1044, 1142, 1143, 1227]);

/** `startedAt`: the server's start; `isStartExact` false where it was read against Baton's clock (whole seconds either way). */
export type ServerProbes = GetLockProbes & { startedAtMs: number; isStartExact: boolean };

/**
 * An SQL error the server answered that says what the user may read (a refusal, an unknown
 * table); null for anything else (a broken connection, a statement timeout), which fails the read.
 */
function sqlErrorOf(error: unknown, errnos: ReadonlySet<number>): { errno: number; message: string } | null {
  const failure = error as { errno?: unknown; sqlState?: unknown; message?: unknown };
  const isAnswer = typeof failure.sqlState === "string" && typeof failure.errno === "number" && errnos.has(failure.errno);
  return isAnswer ? { errno: failure.errno as number, message: String(failure.message) } : null;
}

async function probePerformanceSchema(connection: MysqlConnection): Promise<PerformanceSchemaProbe> {
  const [on] = await connection.read(PERFORMANCE_SCHEMA_SQL);
  if (Number(on?.performance_schema) !== 1) return "off";
  try {
    const [instrument] = await connection.read(INSTRUMENT_SQL);
    if (String(instrument?.enabled ?? "NO").toUpperCase() !== "YES") return "instrument-off";
    await connection.read(METADATA_LOCKS_SQL);
    return "readable";
  } catch (error) {
    const refused = sqlErrorOf(error, DENIED);
    if (refused === null) throw error;
    return { denied: refused.message };
  }
}

async function probePlugin(connection: MysqlConnection): Promise<PluginProbe> {
  try {
    await connection.read(PLUGIN_SQL);
    return "readable";
  } catch (error) {
    const refused = sqlErrorOf(error, new Set([...UNKNOWN_TABLE, ...DENIED]));
    if (refused === null) throw error;
    return UNKNOWN_TABLE.has(refused.errno) ? "missing" : { denied: refused.message };
  }
}

/** Asks the server what it offers; throws only where the connection itself fails. */
export async function probeServer(connection: MysqlConnection): Promise<{ probes: ServerProbes; requests: number }> {
  let requests = 0;
  const counted: MysqlConnection = {
    ...connection,
    read: (sql, values) => {
      requests += 1;
      return connection.read(sql, values);
    },
  };
  const server = await connection.server();
  return { probes: { ...server, ...(await probeAll(counted, server.flavor)) }, requests };
}

async function probeStart(connection: MysqlConnection, flavor: ServerFlavor): Promise<{ startedAtMs: number; isStartExact: boolean }> {
  try {
    const [row] = await connection.read(STARTED_SQL[flavor]);
    const seconds = Number(row?.started_at);
    if (Number.isFinite(seconds) && seconds > 0) return { startedAtMs: Math.round(seconds) * 1000, isStartExact: true };
  } catch (error) {
    if (sqlErrorOf(error, new Set([...UNKNOWN_TABLE, ...DENIED])) === null) throw error;
  }
  const uptime = (await connection.read(UPTIME_SQL)).find((row) => String(row.Variable_name).toLowerCase() === "uptime");
  return { startedAtMs: Math.floor(Date.now() / 1000 - Number(uptime?.Value ?? 0)) * 1000, isStartExact: false };
}

async function probeAll(connection: MysqlConnection, flavor: ServerFlavor): Promise<Omit<ServerProbes, "flavor" | "version" | "user">> {
  const performanceSchema = await probePerformanceSchema(connection);
  const plugin = performanceSchema === "readable" ? undefined : await probePlugin(connection);
  const [privilege] = await connection.read(PROCESS_SQL);
  return {
    performanceSchema,
    ...(plugin === undefined ? {} : { plugin }),
    hasProcess: Number(privilege?.has_process ?? 0) > 0,
    ...(await probeStart(connection, flavor)),
  };
}
