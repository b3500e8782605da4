import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, LockRef } from "@/lib/poller/contract/hold-source";

import { type DatabaseConnection, describeDatabaseError } from "./database-client";
import type { DatabaseClusterConfig } from "./database-config";
import { type LockTableEntry, tableFieldOf } from "./lock-table-config";
import { type TableLockMemory, rememberRow, toTableObservation } from "./lock-table-observation";
import {
  checkColumns,
  type GraphileWorkerRawRow,
  RESOLVE_TABLE_SQL,
  ROWS_HIDDEN_CODE,
  type QuartzRawRow,
  type ResolvedTable,
  type ShedlockRawRow,
  type SpringRawRow,
  type TableLockRow,
  type TableRows,
  tablePattern,
  tableReadQuery,
  toGraphileWorkerRows,
  toQuartzRows,
  toShedlockRows,
  toSpringRows,
} from "./lock-table-rows";

// The configured lock tables of one database source: each read in a read-only transaction of its
// own (with the table's TimeZone), so that a table that is missing, has another layout or is not
// readable by the role fails alone: its locks go stale (never free), with one log line per outage
// naming the setting, while the advisory locks and the other tables are read as usual.

/** One table's part of a read: its rows by resource key, or why it could not be read. */
export type TableRead = { rows: TableRows; byKey: Map<string, TableLockRow>; observedMs: number } | { error: string };

export type LockTables = {
  /** Reads every table (one query each, two for a table not yet resolved); never throws for a table's own failure. */
  read(): Promise<TableRead[]>;
  /** The keys of the locks a read found, and those of failing tables' locks Baton knew (kept, to go stale). */
  refsOf(reads: TableRead[]): { keys: LockRef[]; errors: HoldReadError[] };
  /** Whether a resource key is one of a table's locks. */
  owns(key: string): boolean;
  patternOf(key: string): string | null;
  /** The observations of the given table locks by the read, or their errors. */
  observe(refs: LockRef[], reads: TableRead[]): { observations: HoldObservation[]; errors: HoldReadError[] };
  takeRequestCount(): number;
};

export function createLockTables(config: DatabaseClusterConfig, connection: DatabaseConnection, log: (line: string) => void): LockTables {
  const tables = config.tables ?? [];
  const resolved: (ResolvedTable | null)[] = tables.map(() => null);
  const failing: boolean[] = tables.map(() => false);
  /** Every lock of each table the reads found: resource key -> table index and pattern. */
  const known = new Map<string, { index: number; pattern: string; lastDetails: Record<string, unknown> }>();
  const memory = new Map<string, TableLockMemory>();
  let requests = 0;

  const settingOf = (index: number, field?: string) => `clusters "${config.name}" tables[${index}]${field ? `.${field}` : ""}`;

  /** One line naming the setting that is likely wrong. */
  function describeTableError(index: number, entry: LockTableEntry, error: unknown): string {
    const failure = error as { code?: string; message?: string };
    const message = (failure.message ?? String(error)).split("\n")[0] ?? "";
    const role = decodeURIComponent(new URL(config.url).username) || "<role>";
    // Quartz's tables are named by their prefix, graphile-worker's by its schema.
    const tableField = tableFieldOf(entry);
    const grantOn = entry.format === "quartz" ? `${entry.tablePrefix}fired_triggers, ${entry.tablePrefix}scheduler_state` : entry.table;
    if (failure.code === "42P01") return `${entry.format} table ${entry.table} (${settingOf(index, tableField)}): it does not exist (${message})`;
    if (failure.code === "42703") return `${entry.format} table ${entry.table} (${settingOf(index, tableField)}): a column is missing (${message})`;
    if (failure.code === "42501") {
      return `${entry.format} table ${entry.table} (${settingOf(index, tableField)}): permission denied to the url's role (GRANT SELECT ON ${grantOn} TO ${role}): ${message}`;
    }
    if (failure.code === ROWS_HIDDEN_CODE) {
      return `${entry.format} table ${entry.table} (${settingOf(index, tableField)}): ${message} and shows the url's role (${role}) no rows: ALTER ROLE ${role} BYPASSRLS, or connect as the table's owner`;
    }
    if (failure.code === "22023" && /time ?zone/i.test(message)) return `${entry.format} table ${entry.table} (${settingOf(index, "timeZone")}): ${message}`;
    return `${entry.format} table ${entry.table} (${settingOf(index)}): ${describeDatabaseError(error, config)}`;
  }

  async function resolve(index: number, entry: LockTableEntry): Promise<ResolvedTable> {
    const cached = resolved[index];
    if (cached !== null && cached !== undefined) return cached;
    requests += 1;
    const [row] = await connection.read<{ schema_name: string; table_name: string; columns: string[]; rows_hidden: boolean }>(RESOLVE_TABLE_SQL, [entry.table]);
    if (row === undefined) {
      throw Object.assign(new Error(`relation "${entry.table}" does not exist in the url's database (or its schema is not on the role's search_path)`), {
        code: "42P01",
      });
    }
    const table: ResolvedTable = { schema: row.schema_name, table: row.table_name, columns: row.columns };
    const wrong = checkColumns(entry, table);
    if (wrong !== null) throw Object.assign(new Error(wrong), { code: "42703" });
    // Read anyway, it would look free: no row is what row-level security shows.
    if (row.rows_hidden) throw Object.assign(new Error(`row-level security is on for ${table.schema}.${table.table}`), { code: ROWS_HIDDEN_CODE });
    resolved[index] = table;
    return table;
  }

  async function readTable(index: number, entry: LockTableEntry): Promise<TableRows> {
    const table = await resolve(index, entry);
    const query = tableReadQuery(entry, table);
    requests += 1;
    if (entry.format === "quartz") return toQuartzRows(entry, await connection.read<QuartzRawRow>(query.sql, query.values));
    if (entry.format === "graphile-worker") return toGraphileWorkerRows(entry, await connection.read<GraphileWorkerRawRow>(query.sql, query.values));
    if (entry.format === "shedlock") return toShedlockRows(entry, await connection.read<ShedlockRawRow>(query.sql, query.values, { timeZone: entry.timeZone }));
    const raw = await connection.read<SpringRawRow>(query.sql, query.values, { timeZone: entry.timeZone });
    return toSpringRows(entry, table.columns.includes("expired_after"), raw);
  }

  return {
    async read() {
      const reads: TableRead[] = [];
      for (const [index, entry] of tables.entries()) {
        try {
          const rows = await readTable(index, entry);
          const byKey = new Map(rows.rows.map((row) => [row.resourceKey, row]));
          for (const row of rows.rows) known.set(row.resourceKey, { index, pattern: tablePattern(entry), lastDetails: row.details });
          if (failing[index])
            log(`database ${config.name}: ${entry.format} table ${entry.table} (${settingOf(index)}) answers again (${rows.rows.length} rows)`);
          failing[index] = false;
          reads.push({ rows, byKey, observedMs: Date.now() });
        } catch (error) {
          // Resolved again at the next read: the table may come back, elsewhere or changed.
          resolved[index] = null;
          const line = describeTableError(index, entry, error);
          if (!failing[index]) log(`database ${config.name}: ${line}; its locks are stale until a read answers`);
          failing[index] = true;
          reads.push({ error: line });
        }
      }
      return reads;
    },

    refsOf(reads) {
      const keys: LockRef[] = [];
      const errors: HoldReadError[] = [];
      for (const [key, lock] of known) {
        const read = reads[lock.index];
        // A failing table's locks stay known (and go stale); a read table's are those it found.
        if (read === undefined || "error" in read || read.byKey.has(key)) keys.push({ key, pattern: lock.pattern });
      }
      for (const read of reads) if ("error" in read) errors.push({ message: read.error });
      return { keys, errors };
    },

    owns: (key) => known.has(key),
    patternOf: (key) => known.get(key)?.pattern ?? null,

    observe(refs, reads) {
      const observations: HoldObservation[] = [];
      const errors: HoldReadError[] = [];
      for (const ref of refs) {
        const lock = known.get(ref.key);
        const read = lock === undefined ? undefined : reads[lock.index];
        if (lock === undefined || read === undefined) continue;
        if ("error" in read) {
          // Unread is not free: the lock goes stale with its last holder.
          errors.push({ key: ref.key, message: read.error });
          continue;
        }
        const row = read.byKey.get(ref.key);
        const previous = memory.get(ref.key);
        observations.push(
          toTableObservation(ref, row, {
            dbNowMs: read.rows.dbNowMs,
            observedMs: read.observedMs,
            previous,
            lastDetails: lock.lastDetails,
            checkingIn: read.rows.checkingIn,
          }),
        );
        if (row === undefined) memory.delete(ref.key);
        else memory.set(ref.key, rememberRow(previous, row, read.rows.dbNowMs));
      }
      return { observations, errors };
    },

    takeRequestCount() {
      const count = requests;
      requests = 0;
      return count;
    },
  };
}
