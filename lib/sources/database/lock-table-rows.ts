import { createHash } from "node:crypto";

import type { LockTableEntry } from "./lock-table-config";

// The lock tables' reads: where a configured table is (resolved once through the catalog, as
// PostgreSQL resolves the name), the one query of each format, and its rows made uniform. The
// SQL reads the database's clock (now()) in the same statement, so "held" never depends on
// Baton's clock; the read sets TimeZone to the table's `timeZone` so that TIMESTAMP columns
// (written without a zone: ShedLock's JDBC provider in the JVM's zone) read as instants.
//
// ShedLock (shedlock-provider-jdbc 6.9.2): acquire INSERTs or `UPDATE ... SET lock_until, locked_at,
// locked_by WHERE name = ? AND lock_until <= ?`; release `UPDATE ... SET lock_until = <now or
// lockAtLeastFor's end> WHERE name = ?` (the row stays); extend moves lock_until only.
// Spring Integration JdbcLockRegistry (DefaultLockRepository 7.1.2): LOCK_KEY =
// UUID.nameUUIDFromBytes(name as UTF-8); take INSERTs or `UPDATE SET CLIENT_ID, EXPIRED_AFTER WHERE
// ... (CLIENT_ID = ? OR EXPIRED_AFTER < ?)` (CREATED_DATE kept); release DELETEs the row. 6.x has
// no EXPIRED_AFTER: its take and renew rewrite CREATED_DATE, and the TTL lives in the application.
// Quartz clustered JobStore (quartz 2.5.2, tables_postgres.sql): a QRTZ_FIRED_TRIGGERS row in state
// EXECUTING names the instance running a job now (ENTRY_ID = instance id + a counter); it is deleted
// when the execution completes, or by another node's recovery once the instance stopped checking
// in: QRTZ_SCHEDULER_STATE.LAST_CHECKIN_TIME (epoch ms) older than CHECKIN_INTERVAL + 7.5 s
// (JobStoreSupport.calcFailedIfAfter). A job without @DisallowConcurrentExecution may have
// several EXECUTING rows at once: one lock per job, every execution a holder.
// graphile-worker (0.17.3): a job of a named queue runs only while its queue's
// <schema>._private_job_queues row is free; the worker that takes the job sets the row's
// locked_by (its worker id) and locked_at, and completing or failing the job clears both (`WHERE
// locked_by = <worker>`). A worker that dies keeps the queue locked until any worker's
// resetLockedAt clears locks older than 4 hours. One lock per queue, held while locked_by is set.

/** Spring Integration's LOCK_KEY of a lock name: a name-based (version 3, MD5) UUID, as Java's UUID.nameUUIDFromBytes. */
export function springLockKeyOf(name: string): string {
  const bytes = createHash("md5").update(name, "utf8").digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x30;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Where a configured table is: PostgreSQL's own resolution of the name (search_path, case
 * folding); and whether row-level security hides its rows from the role reading it (enabled, and
 * the role neither owns the table, nor is a superuser, nor has BYPASSRLS): graphile-worker enables
 * it on its tables with no policy, so a role that is only granted SELECT reads no row at all.
 */
export const RESOLVE_TABLE_SQL = `
SELECT n.nspname AS schema_name, c.relname AS table_name, array_agg(a.attname::text ORDER BY a.attnum) AS columns,
       bool_or(c.relrowsecurity AND NOT (r.rolsuper OR r.rolbypassrls) AND (c.relforcerowsecurity OR NOT pg_has_role(c.relowner, 'USAGE'))) AS rows_hidden
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
CROSS JOIN (SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user) AS r
WHERE c.oid = to_regclass($1)
GROUP BY n.nspname, c.relname`;

export type ResolvedTable = { schema: string; table: string; columns: string[] };

/** The error code lock-tables.ts gives a table whose rows row-level security hides from the url's role. */
export const ROWS_HIDDEN_CODE = "baton-rows-hidden";

/** The columns each format needs (ShedLock's README and Spring Integration's schema-postgresql.sql, unquoted: lower case). */
export const REQUIRED_COLUMNS: Record<LockTableEntry["format"], readonly string[]> = {
  shedlock: ["name", "lock_until", "locked_at", "locked_by"],
  "spring-integration": ["lock_key", "region", "client_id", "created_date"],
  quartz: ["sched_name", "entry_id", "instance_name", "job_name", "job_group", "fired_time", "sched_time", "state", "is_nonconcurrent", "requests_recovery"],
  "graphile-worker": ["queue_name", "locked_at", "locked_by"],
};

/** How long graphile-worker lets a queue's lock stand before any worker clears it as abandoned (resetLockedAt). */
export const GRAPHILE_WORKER_STALE_AFTER_MS = 4 * 3_600_000;

/** How long after its last check-in Quartz declares an instance failed, past its check-in interval (JobStoreSupport.calcFailedIfAfter). */
export const QUARTZ_FAILED_AFTER_MS = 7_500;

const FORMAT_LABELS: Record<LockTableEntry["format"], string> = {
  shedlock: "ShedLock",
  "spring-integration": "Spring Integration INT_LOCK",
  quartz: "Quartz QRTZ_FIRED_TRIGGERS",
  "graphile-worker": "graphile-worker _private_job_queues",
};

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What is wrong with a resolved table for its format, or null. */
export function checkColumns(entry: LockTableEntry, resolved: ResolvedTable): string | null {
  const missing = REQUIRED_COLUMNS[entry.format].filter((column) => !resolved.columns.includes(column));
  const where = `${resolved.schema}.${resolved.table}`;
  if (missing.length > 0) return `${where} has no column ${missing.join(", ")}: is it a ${FORMAT_LABELS[entry.format]} table?`;
  if (entry.format === "spring-integration" && !resolved.columns.includes("expired_after") && entry.ttlMs === undefined) {
    return `${where} has no EXPIRED_AFTER column (the Spring Integration 6.x schema): set ttlMs to the registry's TTL`;
  }
  return null;
}

/** The one query of a table's read, with its parameters. Its first row always carries the database's clock, rows or none. */
export function tableReadQuery(entry: LockTableEntry, resolved: ResolvedTable): { sql: string; values: unknown[] } {
  const from = `${quoteIdent(resolved.schema)}.${quoteIdent(resolved.table)}`;
  if (entry.format === "shedlock") {
    return {
      sql: `SELECT now() AS db_now, current_database() AS database, t.name, t.locked_by, t.locked_at, t.lock_until
FROM (SELECT 1) AS one
LEFT JOIN (SELECT name::text AS name, locked_by::text AS locked_by, locked_at::timestamptz AS locked_at, lock_until::timestamptz AS lock_until FROM ${from}) AS t ON true`,
      values: [],
    };
  }
  if (entry.format === "graphile-worker") {
    return {
      sql: `SELECT now() AS db_now, current_database() AS database, t.queue_name, t.locked_by, t.locked_at
FROM (SELECT 1) AS one
LEFT JOIN (SELECT queue_name::text AS queue_name, locked_by::text AS locked_by, locked_at::timestamptz AS locked_at
           FROM ${from} WHERE locked_by IS NOT NULL AND locked_at IS NOT NULL) AS t ON true
ORDER BY t.queue_name`,
      values: [],
    };
  }
  if (entry.format === "quartz") {
    // QRTZ_SCHEDULER_STATE beside QRTZ_FIRED_TRIGGERS, with the same prefix (a missing one fails the read: 42P01).
    const state = `${quoteIdent(resolved.schema)}.${quoteIdent(resolved.table.replace(/fired_triggers$/i, "scheduler_state"))}`;
    return {
      sql: `SELECT now() AS db_now, current_database() AS database,
  (SELECT coalesce(json_agg(json_build_object('schedName', s.sched_name::text, 'instanceName', s.instance_name::text,
                                              'lastCheckinMs', s.last_checkin_time::float8, 'checkinIntervalMs', s.checkin_interval::float8)
                            ORDER BY s.sched_name, s.instance_name), '[]'::json)
   FROM ${state} AS s WHERE $1::text IS NULL OR s.sched_name = $1) AS instances,
  t.sched_name, t.entry_id, t.instance_name, t.job_group, t.job_name, t.fired_time, t.sched_time, t.is_nonconcurrent, t.requests_recovery
FROM (SELECT 1) AS one
LEFT JOIN (SELECT sched_name::text AS sched_name, entry_id::text AS entry_id, instance_name::text AS instance_name, job_group::text AS job_group,
                  job_name::text AS job_name, fired_time::float8 AS fired_time, sched_time::float8 AS sched_time,
                  is_nonconcurrent::boolean AS is_nonconcurrent, requests_recovery::boolean AS requests_recovery
           FROM ${from} WHERE state = 'EXECUTING' AND job_name IS NOT NULL AND ($1::text IS NULL OR sched_name = $1)) AS t ON true
ORDER BY t.sched_name, t.job_group, t.job_name, t.fired_time, t.entry_id`,
      values: [entry.schedulerName ?? null],
    };
  }
  const expiredAfter = resolved.columns.includes("expired_after") ? "expired_after::timestamptz" : "NULL::timestamptz";
  return {
    sql: `SELECT now() AS db_now, current_database() AS database, t.region, t.lock_key, t.client_id, t.created_date, t.expired_after
FROM (SELECT 1) AS one
LEFT JOIN (SELECT region::text AS region, btrim(lock_key::text) AS lock_key, btrim(client_id::text) AS client_id,
                  created_date::timestamptz AS created_date, ${expiredAfter} AS expired_after
           FROM ${from} WHERE region = ANY($1::text[])) AS t ON true`,
    values: [entry.regions],
  };
}

export type ShedlockRawRow = {
  db_now: Date;
  database: string;
  name: string | null;
  locked_by: string | null;
  locked_at: Date | null;
  lock_until: Date | null;
};

export type GraphileWorkerRawRow = {
  db_now: Date;
  database: string;
  queue_name: string | null;
  locked_by: string | null;
  locked_at: Date | null;
};

export type SpringRawRow = {
  db_now: Date;
  database: string;
  region: string | null;
  lock_key: string | null;
  client_id: string | null;
  created_date: Date | null;
  expired_after: Date | null;
};

export type QuartzRawRow = {
  db_now: Date;
  database: string;
  instances: { schedName: string; instanceName: string; lastCheckinMs: number; checkinIntervalMs: number }[];
  sched_name: string | null;
  entry_id: string | null;
  instance_name: string | null;
  job_group: string | null;
  job_name: string | null;
  fired_time: number | null;
  sched_time: number | null;
  is_nonconcurrent: boolean | null;
  requests_recovery: boolean | null;
};

/** One row of a lock table, whichever the format: who, since when, until when. */
export type TableLockRow = {
  resourceKey: string;
  /** The lock's name: ShedLock's name, the configured name of a Spring LOCK_KEY (else the key). */
  name: string;
  holder: string;
  /** A new one is a new hold: ShedLock's locked_by and locked_at; Spring's CLIENT_ID (and CREATED_DATE on 7.x). */
  token: string;
  /** locked_at; CREATED_DATE. */
  startedMs: number;
  /** lock_until; EXPIRED_AFTER (7.x) or CREATED_DATE + ttlMs (6.x). */
  expiresMs: number;
  details: Record<string, unknown>;
  /** Quartz: "<sched_name>/<instance_name>" of the holder, looked up in TableRows.checkingIn to tell how its hold ended. */
  holderInstance?: string;
};

export type TableRows = {
  database: string;
  dbNowMs: number;
  rows: TableLockRow[];
  /** Quartz: the instances ("<sched_name>/<instance_name>") whose last check-in is within their interval + 7.5 s at this read. */
  checkingIn?: ReadonlySet<string>;
};

/** The prefix of a table's resource keys: "<database>/<table as configured>/". */
export function tableKeyPrefix(database: string, entry: LockTableEntry): string {
  return `${database}/${entry.table}/`;
}

/** The pattern a table's locks are grouped under on the pages. */
export function tablePattern(entry: LockTableEntry): string {
  return `*/${entry.table}/*`;
}

const iso = (date: Date) => date.toISOString();

export function toShedlockRows(entry: Extract<LockTableEntry, { format: "shedlock" }>, raw: ShedlockRawRow[]): TableRows {
  const first = raw[0]!;
  const rows: TableLockRow[] = [];
  for (const row of raw) {
    if (row.name === null || row.locked_at === null || row.lock_until === null) continue;
    rows.push({
      resourceKey: `${tableKeyPrefix(first.database, entry)}${row.name}`,
      name: row.name,
      holder: row.locked_by ?? "",
      token: `shedlock:${row.locked_by ?? ""}@${iso(row.locked_at)}`,
      startedMs: row.locked_at.getTime(),
      expiresMs: row.lock_until.getTime(),
      details: {
        database: first.database,
        table: entry.table,
        format: "shedlock",
        name: row.name,
        lockedBy: row.locked_by,
        lockedAt: iso(row.locked_at),
        lockUntil: iso(row.lock_until),
        timeZone: entry.timeZone,
      },
    });
  }
  return { database: first.database, dbNowMs: first.db_now.getTime(), rows };
}

export function toSpringRows(entry: Extract<LockTableEntry, { format: "spring-integration" }>, hasExpiredAfter: boolean, raw: SpringRawRow[]): TableRows {
  const first = raw[0]!;
  const names = new Map(entry.names.map((name) => [springLockKeyOf(name), name]));
  const rows: TableLockRow[] = [];
  for (const row of raw) {
    if (row.region === null || row.lock_key === null || row.created_date === null) continue;
    const expires = hasExpiredAfter ? row.expired_after : new Date(row.created_date.getTime() + (entry.ttlMs ?? 0));
    if (expires === null) continue;
    const name = names.get(row.lock_key);
    const clientId = row.client_id ?? "";
    rows.push({
      resourceKey: `${tableKeyPrefix(first.database, entry)}${row.region}/${name ?? row.lock_key}`,
      name: name ?? row.lock_key,
      holder: clientId,
      // 6.x rewrites CREATED_DATE at every renewal: there the client is the hold.
      token: hasExpiredAfter ? `spring:${clientId}@${iso(row.created_date)}` : `spring:${clientId}`,
      startedMs: row.created_date.getTime(),
      expiresMs: expires.getTime(),
      details: {
        database: first.database,
        table: entry.table,
        format: "spring-integration",
        schema: hasExpiredAfter ? "7.x" : "6.x",
        region: row.region,
        lockKey: row.lock_key,
        ...(name !== undefined ? { name } : {}),
        clientId,
        createdDate: iso(row.created_date),
        ...(hasExpiredAfter ? { expiredAfter: iso(expires) } : { ttlMs: entry.ttlMs }),
        timeZone: entry.timeZone,
      },
    });
  }
  return { database: first.database, dbNowMs: first.db_now.getTime(), rows };
}

/**
 * graphile-worker's locked named queues, one lock per queue: held by the worker whose id is in
 * locked_by since locked_at, until 4 hours after it (then abandoned, and cleared by the next
 * worker's resetLockedAt). A free queue has no row: its lock ends as a deleted row's does.
 */
export function toGraphileWorkerRows(entry: Extract<LockTableEntry, { format: "graphile-worker" }>, raw: GraphileWorkerRawRow[]): TableRows {
  const first = raw[0]!;
  const rows: TableLockRow[] = [];
  for (const row of raw) {
    if (row.queue_name === null || row.locked_by === null || row.locked_at === null) continue;
    rows.push({
      resourceKey: `${tableKeyPrefix(first.database, entry)}${row.queue_name}`,
      name: row.queue_name,
      holder: row.locked_by,
      token: `graphile-worker:${row.locked_by}@${iso(row.locked_at)}`,
      startedMs: row.locked_at.getTime(),
      expiresMs: row.locked_at.getTime() + GRAPHILE_WORKER_STALE_AFTER_MS,
      details: {
        database: first.database,
        table: entry.table,
        format: "graphile-worker",
        schema: entry.schema,
        queueName: row.queue_name,
        lockedBy: row.locked_by,
        lockedAt: iso(row.locked_at),
      },
    });
  }
  return { database: first.database, dbNowMs: first.db_now.getTime(), rows };
}

/** One Quartz scheduler instance as a read saw its check-ins. */
export type QuartzInstanceFacts = {
  instanceName: string;
  lastCheckinAt: string;
  checkinIntervalMs: number;
  checkinAgeMs: number;
  isCheckingIn: boolean;
};

/** One EXECUTING row of QRTZ_FIRED_TRIGGERS. */
export type QuartzExecutionFacts = {
  instanceName: string;
  entryId: string;
  firedAt: string;
  scheduledFor: string | null;
  isNonConcurrent: boolean;
  requestsRecovery: boolean;
};

/**
 * Quartz's EXECUTING rows, one lock per job ("<sched_name>/<job_group>.<job_name>"): the holder is
 * the oldest execution whose instance still checks in (else the oldest), its token the ENTRY_ID,
 * its expiry the instance's last check-in + interval + 7.5 s; the other executions are listed
 * as `sharedHolders` (a job without @DisallowConcurrentExecution running twice at once).
 */
export function toQuartzRows(entry: Extract<LockTableEntry, { format: "quartz" }>, raw: QuartzRawRow[]): TableRows {
  const first = raw[0]!;
  const dbNowMs = first.db_now.getTime();
  const instances = new Map<string, QuartzInstanceFacts & { schedName: string; expiresMs: number }>();
  for (const instance of first.instances) {
    const ageMs = Math.max(0, dbNowMs - instance.lastCheckinMs);
    const expiresMs = instance.lastCheckinMs + instance.checkinIntervalMs + QUARTZ_FAILED_AFTER_MS;
    instances.set(`${instance.schedName}/${instance.instanceName}`, {
      schedName: instance.schedName,
      instanceName: instance.instanceName,
      lastCheckinAt: new Date(instance.lastCheckinMs).toISOString(),
      checkinIntervalMs: instance.checkinIntervalMs,
      checkinAgeMs: ageMs,
      isCheckingIn: expiresMs > dbNowMs,
      expiresMs,
    });
  }
  const jobs = new Map<string, { schedName: string; group: string; name: string; rows: QuartzRawRow[] }>();
  for (const row of raw) {
    if (row.sched_name === null || row.entry_id === null || row.job_group === null || row.job_name === null || row.fired_time === null) continue;
    const id = `${row.sched_name}/${row.job_group}.${row.job_name}`;
    const job = jobs.get(id) ?? { schedName: row.sched_name, group: row.job_group, name: row.job_name, rows: [] };
    job.rows.push(row);
    jobs.set(id, job);
  }
  const rows: TableLockRow[] = [];
  for (const [id, job] of jobs) {
    const instanceOf = (row: QuartzRawRow) => instances.get(`${job.schedName}/${row.instance_name ?? ""}`);
    // Rows come ordered by fired_time: a live instance's execution first, then the oldest.
    const ordered = [...job.rows].sort((a, b) => Number(instanceOf(b)?.isCheckingIn ?? false) - Number(instanceOf(a)?.isCheckingIn ?? false));
    const executions: QuartzExecutionFacts[] = ordered.map((row) => ({
      instanceName: row.instance_name ?? "",
      entryId: row.entry_id!,
      firedAt: new Date(row.fired_time!).toISOString(),
      scheduledFor: row.sched_time === null ? null : new Date(row.sched_time).toISOString(),
      isNonConcurrent: row.is_nonconcurrent === true,
      requestsRecovery: row.requests_recovery === true,
    }));
    const holder = ordered[0]!;
    const holderFacts = executions[0]!;
    const schedulerInstances = [...instances.values()]
      .filter((instance) => instance.schedName === job.schedName)
      .map(({ schedName: _sched, expiresMs: _expires, ...facts }) => facts);
    rows.push({
      resourceKey: `${tableKeyPrefix(first.database, entry)}${id}`,
      name: id,
      holder: holderFacts.instanceName,
      token: `quartz:${holderFacts.entryId}`,
      startedMs: holder.fired_time!,
      // An instance without a state row was declared failed: its execution's hold is over.
      expiresMs: instanceOf(holder)?.expiresMs ?? Math.min(holder.fired_time!, dbNowMs),
      holderInstance: `${job.schedName}/${holderFacts.instanceName}`,
      details: {
        database: first.database,
        table: entry.table,
        format: "quartz",
        schedulerName: job.schedName,
        jobGroup: job.group,
        jobName: job.name,
        ...holderFacts,
        ttl: "check-in interval + 7.5 s",
        executions,
        ...(executions.length > 1 ? { sharedHolders: executions.slice(1) } : {}),
        schedulerInstances,
      },
    });
  }
  const checkingIn = new Set([...instances].filter(([, instance]) => instance.isCheckingIn).map(([key]) => key));
  return { database: first.database, dbNowMs, rows, checkingIn };
}
