import type { GetLockMode } from "./get-lock-mode";
import type { MysqlRow, ServerFlavor } from "./mysql-client";

// The one query of a GET_LOCK read, in each mode (get-lock-mode.ts), and its rows made uniform.
// Every query answers the same columns: one row per connection holding, or (performance_schema
// only) waiting for, one name. Nothing records when a GET_LOCK was granted: since is the first
// read that saw it.

/** One row of a read: a connection's hold of, or wait for, one GET_LOCK name. */
export type GetLockRow = {
  name: string;
  isGranted: boolean;
  connectionId: number;
  /** performance_schema's LOCK_TYPE (SHARED_NO_WRITE), the plugin's LOCK_MODE (MDL_SHARED_NO_WRITE); null by name. */
  lockType: string | null;
  /** Null where the user cannot see the connection (no PROCESS, outside performance_schema). */
  user: string | null;
  /** Without the client's port (PROCESSLIST says "10.0.0.7:51234", performance_schema "10.0.0.7"). */
  host: string | null;
  db: string | null;
  command: string | null;
  state: string | null;
  /** Seconds in its current command (a holder that sleeps: since its last statement). */
  timeSeconds: number | null;
  /** A waiter's place: when its statement (the GET_LOCK call) began, on the server's own timer. */
  waitOrder: bigint | null;
  /** A waiter's milliseconds in its statement (MariaDB's PROCESSLIST.TIME_MS): the longest waiting asked first. */
  waitedMs: number | null;
};

/**
 * performance_schema: holders (GRANTED) and waiters (PENDING), with the connection's facts from
 * threads (no PROCESS needed). A waiter's place within a second, which PROCESSLIST_TIME cannot
 * tell: its statement's start on the server's timer (events_statements_current, one clock for
 * every connection; its consumer is on by default in MySQL, off in MariaDB), and on MariaDB its
 * milliseconds in the statement (PROCESSLIST.TIME_MS, which MySQL lacks; other users' with
 * PROCESS only).
 */
export function performanceSchemaLocksSql(flavor: ServerFlavor): string {
  const waitedMs =
    flavor === "mariadb"
      ? "CASE WHEN m.LOCK_STATUS = 'PENDING' THEN (SELECT p.TIME_MS FROM information_schema.PROCESSLIST p WHERE p.ID = t.PROCESSLIST_ID) END"
      : "NULL";
  return `
SELECT m.OBJECT_NAME AS lock_name, m.LOCK_STATUS AS lock_status, m.LOCK_TYPE AS lock_type,
       t.PROCESSLIST_ID AS connection_id, t.PROCESSLIST_USER AS user, t.PROCESSLIST_HOST AS host,
       t.PROCESSLIST_DB AS db, t.PROCESSLIST_COMMAND AS command, t.PROCESSLIST_STATE AS state,
       t.PROCESSLIST_TIME AS time_seconds,
       CASE WHEN m.LOCK_STATUS = 'PENDING' THEN
         (SELECT MIN(s.TIMER_START) FROM performance_schema.events_statements_current s WHERE s.THREAD_ID = m.OWNER_THREAD_ID)
       END AS wait_order,
       ${waitedMs} AS waited_ms
FROM performance_schema.metadata_locks m
JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID
WHERE m.OBJECT_TYPE = 'USER LEVEL LOCK' AND m.LOCK_STATUS IN ('GRANTED', 'PENDING')`;
}

/** PROCESSLIST's HOST carries the client's port ("10.0.0.7:51234"): said by host_has_port, so that only these rows lose it. */
const PROCESSLIST_COLUMNS = "p.USER AS user, p.HOST AS host, 1 AS host_has_port, p.DB AS db, p.COMMAND AS command, p.STATE AS state, p.TIME AS time_seconds";

/** MariaDB's metadata_lock_info plugin: granted locks only; THREAD_ID is the connection id, TABLE_SCHEMA the name. */
export const PLUGIN_LOCKS_SQL = `
SELECT m.TABLE_SCHEMA AS lock_name, 'GRANTED' AS lock_status, m.LOCK_MODE AS lock_type, m.THREAD_ID AS connection_id,
       ${PROCESSLIST_COLUMNS}, NULL AS wait_order, NULL AS waited_ms
FROM information_schema.METADATA_LOCK_INFO m
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = m.THREAD_ID
WHERE m.LOCK_TYPE = 'User lock'`;

/**
 * IS_USED_LOCK of each configured name: one `SELECT ? AS lock_name, IS_USED_LOCK(?)` per name,
 * joined by UNION ALL (the statement's shape depends on the count only; the names are values).
 * Its values: each name twice, in order (namesLocksValues).
 */
export function namesLocksSql(count: number): string {
  const names = Array.from({ length: count }, () => "SELECT ? AS lock_name, IS_USED_LOCK(?) AS connection_id").join(" UNION ALL ");
  return `
SELECT l.lock_name, 'GRANTED' AS lock_status, NULL AS lock_type, l.connection_id, ${PROCESSLIST_COLUMNS}, NULL AS wait_order, NULL AS waited_ms
FROM (${names}) l
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = l.connection_id
WHERE l.connection_id IS NOT NULL`;
}

export function namesLocksValues(names: readonly string[]): string[] {
  return names.flatMap((name) => [name, name]);
}

/** The read of one mode: its statement and values. */
export function locksQueryOf(mode: GetLockMode, names: readonly string[], flavor: ServerFlavor): { sql: string; values: unknown[] } | null {
  if (mode === "performance_schema") return { sql: performanceSchemaLocksSql(flavor), values: [] };
  if (mode === "plugin") return { sql: PLUGIN_LOCKS_SQL, values: [] };
  return names.length === 0 ? null : { sql: namesLocksSql(names.length), values: namesLocksValues(names) };
}

/**
 * Which of the given connections still exist: performance_schema.threads, or PROCESSLIST
 * (complete with PROCESS only). One being KILLed has let go of its locks before it leaves the
 * list: it counts as gone.
 */
export const THREADS_ALIVE_SQL =
  "SELECT PROCESSLIST_ID AS connection_id FROM performance_schema.threads WHERE PROCESSLIST_ID IN (?) AND COALESCE(PROCESSLIST_COMMAND, '') <> 'Killed'";
export const PROCESSLIST_ALIVE_SQL = "SELECT ID AS connection_id FROM information_schema.PROCESSLIST WHERE ID IN (?) AND COMMAND <> 'Killed'";

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : Buffer.isBuffer(value) ? value.toString("utf8") : String(value);

function integer(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? Math.trunc(parsed) : null;
}

function decimal(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

function bigInteger(value: unknown): bigint | null {
  const digits = text(value);
  return digits !== null && /^\d+$/.test(digits) ? BigInt(digits) : null;
}

/** A row of any mode's query, parsed; null for a row without a name or connection (a thread that just ended). */
export function toGetLockRow(raw: MysqlRow): GetLockRow | null {
  const name = text(raw.lock_name);
  const connectionId = integer(raw.connection_id);
  if (name === null || connectionId === null) return null;
  const host = text(raw.host);
  return {
    name,
    isGranted: text(raw.lock_status) !== "PENDING",
    connectionId,
    lockType: text(raw.lock_type),
    user: text(raw.user),
    host: host !== null && integer(raw.host_has_port) === 1 ? host.replace(/:\d+$/, "") : host,
    db: text(raw.db),
    command: text(raw.command),
    state: text(raw.state),
    timeSeconds: integer(raw.time_seconds),
    waitOrder: bigInteger(raw.wait_order),
    waitedMs: decimal(raw.waited_ms),
  };
}
