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

/** Spring Integration's LOCK_KEY of a lock name: a name-based (version 3, MD5) UUID, as Java's UUID.nameUUIDFromBytes. */
export function springLockKeyOf(name: string): string {
  const bytes = createHash("md5").update(name, "utf8").digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x30;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Where a configured table is: PostgreSQL's own resolution of the name (search_path, case folding). */
export const RESOLVE_TABLE_SQL = `
SELECT n.nspname AS schema_name, c.relname AS table_name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.oid = to_regclass($1)
GROUP BY n.nspname, c.relname`;

export type ResolvedTable = { schema: string; table: string; columns: string[] };

/** The columns each format needs (ShedLock's README and Spring Integration's schema-postgresql.sql, unquoted: lower case). */
export const REQUIRED_COLUMNS: Record<LockTableEntry["format"], readonly string[]> = {
  shedlock: ["name", "lock_until", "locked_at", "locked_by"],
  "spring-integration": ["lock_key", "region", "client_id", "created_date"],
};

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What is wrong with a resolved table for its format, or null. */
export function checkColumns(entry: LockTableEntry, resolved: ResolvedTable): string | null {
  const missing = REQUIRED_COLUMNS[entry.format].filter((column) => !resolved.columns.includes(column));
  const where = `${resolved.schema}.${resolved.table}`;
  if (missing.length > 0)
    return `${where} has no column ${missing.join(", ")}: is it a ${entry.format === "shedlock" ? "ShedLock" : "Spring Integration INT_LOCK"} table?`;
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

export type SpringRawRow = {
  db_now: Date;
  database: string;
  region: string | null;
  lock_key: string | null;
  client_id: string | null;
  created_date: Date | null;
  expired_after: Date | null;
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
};

export type TableRows = { database: string; dbNowMs: number; rows: TableLockRow[] };

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
