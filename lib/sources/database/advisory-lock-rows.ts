// The one query a read sends: every advisory lock of the server (pg_locks covers every database)
// joined to the sessions that hold or wait for it. Ordering is left to the caller: without ORDER
// BY the query costs about a third less on 10,000 locks (docs/kinds/database.md).

/** One row of the query: a session's hold of, or wait for, one key. */
export type AdvisoryLockRow = {
  database: string | null;
  /** "42" (one bigint) or "7,12" (two int4). */
  lockKey: string;
  /** 1: one bigint key; 2: two int4 keys. */
  keyForm: number;
  mode: string;
  isGranted: boolean;
  pid: number;
  waitStart: Date | null;
  applicationName: string | null;
  user: string | null;
  /** Null without pg_read_all_stats for another role's session (and for a Unix socket). */
  clientAddr: string | null;
  backendStart: Date | null;
  xactStart: Date | null;
  state: string | null;
  stateChange: Date | null;
  /** For a waiter: the pids it waits behind (the holders and the waiters queued ahead). */
  blockedBy: number[] | null;
};

export const ADVISORY_LOCKS_SQL = `
SELECT d.datname AS database,
       CASE l.objsubid
         WHEN 1 THEN ((l.classid::int8 << 32) | l.objid::int8)::text
         ELSE (l.classid::int8::bit(32)::int4)::text || ',' || (l.objid::int8::bit(32)::int4)::text
       END AS lock_key,
       l.objsubid AS key_form, l.mode, l.granted, l.pid, l.waitstart,
       a.application_name, a.usename, host(a.client_addr) AS client_addr,
       a.backend_start, a.xact_start, a.state, a.state_change,
       CASE WHEN NOT l.granted THEN pg_blocking_pids(l.pid) END AS blocked_by
FROM pg_locks l
LEFT JOIN pg_stat_activity a ON a.pid = l.pid
LEFT JOIN pg_database d ON d.oid = l.database
WHERE l.locktype = 'advisory' AND ($1::text[] IS NULL OR d.datname = ANY($1::text[]))`;

/** Whether the observer sees other roles' sessions in full (client address, start times, state). */
export const STATS_PRIVILEGE_SQL = `SELECT pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS can_read_stats, current_user AS role`;

/** The sessions among the given pids that still exist: a hold's holder after its lock moved. */
export const SESSIONS_SQL = `SELECT pid, backend_start FROM pg_stat_activity WHERE pid = ANY($1::int4[])`;

type RawRow = {
  database: string | null;
  lock_key: string;
  key_form: number;
  mode: string;
  granted: boolean;
  pid: number;
  waitstart: Date | null;
  application_name: string | null;
  usename: string | null;
  client_addr: string | null;
  backend_start: Date | null;
  xact_start: Date | null;
  state: string | null;
  state_change: Date | null;
  blocked_by: number[] | null;
};

export function toAdvisoryLockRow(raw: RawRow): AdvisoryLockRow {
  return {
    database: raw.database,
    lockKey: raw.lock_key,
    keyForm: raw.key_form,
    mode: raw.mode,
    isGranted: raw.granted,
    pid: raw.pid,
    waitStart: raw.waitstart,
    applicationName: raw.application_name,
    user: raw.usename,
    clientAddr: raw.client_addr,
    backendStart: raw.backend_start,
    xactStart: raw.xact_start,
    state: raw.state,
    stateChange: raw.state_change,
    blockedBy: raw.blocked_by,
  };
}

export type { RawRow as AdvisoryLockRawRow };
