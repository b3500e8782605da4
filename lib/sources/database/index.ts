// Baton's PostgreSQL database source: who holds each advisory lock of a server, and each lock of
// the configured lock tables (ShedLock, Spring Integration INT_LOCK, Quartz's clustered
// JobStore: a lock per job). The files, in the order a read uses them:
//   database-config.ts         the `kind: "database"` settings (zod) and their one-line errors
//   lock-table-config.ts       one entry of `tables`
//   advisory-keys.ts           key text, the configured names and the libraries' hashes of names
//   database-client.ts         one connection; every read read-only with a statement timeout
//   advisory-lock-rows.ts      the one query of a read: pg_locks joined to pg_stat_activity
//   lock-observation.ts        the rows of one lock -> the shared HoldObservation
//   lock-tables.ts             each table's read, alone in its transaction; its failures
//   lock-table-rows.ts         where a table is, its query, its rows made uniform
//   lock-table-observation.ts  a table's row -> HoldObservation, and the ending the rows tell
// MariaDB/MySQL GET_LOCK user locks (engine "mariadb" or "mysql", get-lock-source.ts), loaded by
// get-lock-runtime.ts instead of this source (not exported here: pg and mysql2 load apart):
//   mysql-client.ts            one mysql2 connection; read-only, every statement with a timeout
//   get-lock-probes.ts         what the server offers the user: performance_schema, the plugin, PROCESS
//   get-lock-mode.ts           the mode chosen from it, and the line that says why
//   get-lock-rows.ts           each mode's one query, its rows made uniform
//   get-lock-observation.ts    the rows of one name -> HoldObservation
//   get-lock-scope.ts          the entry in words and its patterns
// There is no change signal (PostgreSQL notifies nobody of lock changes): polls only. Each read
// is the whole server's advisory locks and every table, so a read finds new locks itself;
// discovery is the same read, and tells which are gone. How an advisory hold ended: checkHolders
// asks pg_stat_activity whether the old holder's session (pid and backend start) still exists; a
// table's hold: its rows (lock-table-observation.ts). No Next and no Prisma here.

import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import type { HoldSource, LockRef } from "@/lib/poller/contract/hold-source";

import { ADVISORY_LOCKS_SQL, type AdvisoryLockRawRow, type AdvisoryLockRow, SESSIONS_SQL, STATS_PRIVILEGE_SQL, toAdvisoryLockRow } from "./advisory-lock-rows";
import { type KeyName, nameKeys } from "./advisory-keys";
import { type DatabaseConnection, describeDatabaseError, openDatabaseConnection } from "./database-client";
import type { DatabaseClusterConfig } from "./database-config";
import { groupRows, type LockGroup, parseSessionToken, patternOf, resourceKeyOf, toFreeObservation, toHoldObservation } from "./lock-observation";
import { createLockTables, type TableRead } from "./lock-tables";
import { createOutageLog } from "./outage-log";
import { createReusedRead } from "./reused-read";

export { databaseClusterSchema, parseDatabaseClusterConfig } from "./database-config";
export type { DatabaseClusterConfig, DatabaseClusterInput } from "./database-config";
export type { DatabaseLockDetails } from "./lock-observation";

/** What the last read cost: rows, and the query's time as the client measured it. */
export type ReadCost = { rows: number; locks: number; durationMs: number };

export type DatabaseHoldSource = HoldSource & {
  lastReadCost(): ReadCost | null;
  /** Whether the role sees other sessions in full (pg_read_all_stats); null before the first check. */
  canReadStats(): boolean | null;
};

type Read = { groups: Map<string, LockGroup>; tables: TableRead[]; rows: number; observedMs: number };

export function createDatabaseHoldSource(config: DatabaseClusterConfig, options: { log?: (line: string) => void } = {}): DatabaseHoldSource {
  const log = options.log ?? (() => {});
  const connection: DatabaseConnection = openDatabaseConnection(config, (error) =>
    log(`database ${config.name}: ${describeDatabaseError(error, config)} (an idle connection; the next read connects again)`),
  );
  const tables = createLockTables(config, connection, log);
  const names = new Map<string, Map<string, KeyName>>();
  const namesOf = (database: string) => {
    let map = names.get(database);
    if (map === undefined) {
      map = nameKeys(config.locks, database);
      names.set(database, map);
    }
    return map;
  };
  let requests = 0;
  const discoveryRead = createReusedRead<Read>();
  const outage = createOutageLog(config.name, log);
  let lastCost: ReadCost | null = null;
  let statsVisible: boolean | null = null;
  /** Every lock the last read found, for patternOf and for the free locks' details. */
  let known = new Map<string, LockGroup>();
  /**
   * The holders' tokens whose sessions end at every release: npm advisory-lock closes its
   * connection right after pg_advisory_unlock, so a session gone says nothing of how the hold
   * ended and checkHolders does not answer for them. Two reads' worth: the read that saw a hold
   * end no longer has its token, the one before it does.
   */
  let endsSessionOnUnlock = { previous: new Set<string>(), current: new Set<string>() };

  /**
   * The named locks that must be held, in each configured database: watched even while nobody
   * holds them (else a lock that should always be held would be missing, not flagged free).
   */
  function expectedLocks(): Map<string, LockGroup> {
    const expected = new Map<string, LockGroup>();
    for (const database of config.databases ?? []) {
      for (const [key, name] of namesOf(database)) {
        if (!name.mustBeHeld) continue;
        const resourceKey = resourceKeyOf(database, key, name);
        expected.set(resourceKey, { resourceKey, pattern: patternOf(name), database, key, keyForm: key.includes(",") ? 2 : 1, name, rows: [] });
      }
    }
    return expected;
  }

  async function checkStats(): Promise<void> {
    if (statsVisible !== null) return;
    requests += 1;
    const [row] = await connection.read<{ can_read_stats: boolean; role: string }>(STATS_PRIVILEGE_SQL, []);
    statsVisible = row?.can_read_stats === true;
    if (!statsVisible) {
      log(
        `database ${config.name}: role ${row?.role ?? "?"} is not in pg_read_all_stats (or pg_monitor): other sessions' client address, start times and state are hidden; holders are told apart by pid alone (GRANT pg_monitor TO ${row?.role ?? "<role>"})`,
      );
    }
  }

  async function readLocks(): Promise<Read> {
    await checkStats();
    const startedMs = performance.now();
    requests += 1;
    const raw = await connection.read<AdvisoryLockRawRow>(ADVISORY_LOCKS_SQL, [config.databases ?? null]);
    const durationMs = performance.now() - startedMs;
    const observedMs = Date.now();
    const rows: AdvisoryLockRow[] = raw.map(toAdvisoryLockRow);
    const groups = groupRows(rows, { namesOf });
    lastCost = { rows: rows.length, locks: groups.size, durationMs };
    for (const [key, group] of groups) known.set(key, group);
    outage.answered(`${groups.size} advisory locks`);
    // After the advisory read: a server that does not answer fails that read, and every lock goes stale.
    const tableReads = await tables.read();
    return { groups, tables: tableReads, rows: rows.length, observedMs };
  }

  function describeFailure(error: unknown): string {
    const line = describeDatabaseError(error, config);
    outage.failed(line);
    // The role may change while the server is away.
    statsVisible = null;
    return line;
  }

  return {
    async discover() {
      let read: Read;
      try {
        read = await readLocks();
      } catch (error) {
        return { keys: [], errors: [{ message: describeFailure(error) }], isComplete: false };
      }
      discoveryRead.keep(read);
      known = new Map([...expectedLocks(), ...read.groups]);
      const tableRefs = tables.refsOf(read.tables);
      return {
        keys: [...[...known.values()].map((group) => ({ key: group.resourceKey, pattern: group.pattern })), ...tableRefs.keys],
        errors: tableRefs.errors,
        isComplete: true,
      };
    },

    async observe(refs: LockRef[]) {
      let read: Read;
      try {
        read = await discoveryRead.take(readLocks);
      } catch (error) {
        // Unread is not free: every lock goes stale.
        const message = describeFailure(error);
        return { observations: [], errors: refs.map((ref) => ({ key: ref.key, message })) };
      }
      const context = { namesOf, idleInTransactionMaxMs: config.idleInTransactionMaxMs, observedMs: read.observedMs };
      endsSessionOnUnlock = { previous: endsSessionOnUnlock.current, current: new Set() };
      const tableRefs = refs.filter((ref) => tables.owns(ref.key));
      const advisoryRefs = refs.filter((ref) => !tables.owns(ref.key));
      const fromTables = tables.observe(tableRefs, read.tables);
      const observations: HoldObservation[] = advisoryRefs.map((ref) => {
        const group = read.groups.get(ref.key);
        if (group === undefined) return toFreeObservation(ref, read.observedMs, known.get(ref.key));
        const observation = toHoldObservation(group, context);
        if (observation.holderToken !== null && group.name?.library === "advisory-lock") endsSessionOnUnlock.current.add(observation.holderToken);
        return observation;
      });
      return { observations: [...observations, ...fromTables.observations], errors: fromTables.errors };
    },

    async checkHolders(tokens) {
      const sessions = tokens.flatMap((token) => {
        if (endsSessionOnUnlock.previous.has(token) || endsSessionOnUnlock.current.has(token)) return [];
        const parsed = parseSessionToken(token);
        return parsed === null ? [] : [{ token, ...parsed }];
      });
      if (sessions.length === 0) return new Map();
      requests += 1;
      const rows = await connection.read<{ pid: number; backend_start: Date | null }>(SESSIONS_SQL, [sessions.map((s) => s.pid)]);
      const startOf = new Map(rows.map((row) => [row.pid, row.backend_start?.toISOString() ?? null]));
      // A pid that is there with another backend start is another session: the holder's is gone.
      return new Map(
        sessions.map(({ token, pid, backendStart }) => {
          const isAlive = startOf.has(pid) && (backendStart === null || startOf.get(pid) === null || startOf.get(pid) === backendStart);
          return [token, isAlive ? "alive" : "gone"] as const;
        }),
      );
    },

    patternOf: (key) => known.get(key)?.pattern ?? tables.patternOf(key),

    async watch() {
      // PostgreSQL signals no lock change: every read is a poll.
      return { mode: "none", stop: async () => {} };
    },

    takeRequestCount() {
      const count = requests + tables.takeRequestCount();
      requests = 0;
      return count;
    },
    lastReadCost: () => lastCost,
    canReadStats: () => statsVisible,
    close: () => connection.close(),
  };
}
