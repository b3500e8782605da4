import type { HoldObservation, HolderLiveness } from "@/lib/poller/contract/hold-observation";
import type { HoldReadError, HoldSource, LockRef } from "@/lib/poller/contract/hold-source";

import type { DatabaseClusterConfig } from "./database-config";
import { chooseGetLockMode, type ServerMode } from "./get-lock-mode";
import {
  type GetLockEngine,
  type GetLockGroup,
  type GetLockName,
  type GetLockReadContext,
  getLockPatternOf,
  groupGetLockRows,
  parseGetLockToken,
  toFreeGetLockObservation,
  toGetLockObservation,
} from "./get-lock-observation";
import { probeServer } from "./get-lock-probes";
import { type GetLockRow, locksQueryOf, PROCESSLIST_ALIVE_SQL, THREADS_ALIVE_SQL, toGetLockRow } from "./get-lock-rows";
import { describeMysqlError, type MysqlConnection, openMysqlConnection } from "./mysql-client";
import { createOutageLog } from "./outage-log";
import { createReusedRead } from "./reused-read";

// Baton's source of a MariaDB/MySQL server's GET_LOCK user locks (`kind: "database"`, engine
// "mariadb" or "mysql"). At each discovery, and after a failed read, it asks the server what it
// offers (get-lock-probes.ts) and picks the fullest mode (get-lock-mode.ts); every read is then
// one query of that mode (get-lock-rows.ts) on one read-only connection with a statement
// timeout (mysql-client.ts). No change signal exists: polls only. How a hold ended:
// checkHolders asks whether the old holder's connection still exists (performance_schema.threads,
// or PROCESSLIST with PROCESS); a restart of the server ends every connection. No Next and no
// Prisma here.

/** How far two reads of the server's start against Baton's clock may differ and still be one start (tokens must not move). */
const START_TOLERANCE_MS = 2_000;

export type GetLockSourceConfig = DatabaseClusterConfig & { engine: GetLockEngine };

export type GetLockHoldSource = HoldSource & {
  /** The mode the last probe chose, with its line; null before the first or after a failed read. */
  currentMode(): ServerMode | null;
};

type Read = { groups: Map<string, GetLockGroup>; context: GetLockReadContext; mode: ServerMode };

export function createGetLockHoldSource(config: GetLockSourceConfig, options: { log?: (line: string) => void } = {}): GetLockHoldSource {
  const log = options.log ?? (() => {});
  const setting = `clusters "${config.name}" url`;
  const connection: MysqlConnection = openMysqlConnection(config, (error) =>
    log(`database ${config.name}: ${describeMysqlError(error, config)} (an idle connection; the next read connects again)`),
  );
  const configured = new Map<string, GetLockName>((config.names ?? []).map((entry) => [entry.name, entry]));
  const names = [...configured.keys()];
  let requests = 0;
  let mode: ServerMode | null = null;
  let loggedLine: string | null = null;
  let serverStartedAt: string | null = null;
  const discoveryRead = createReusedRead<Read>();
  const outage = createOutageLog(config.name, log);
  /** Every lock the last reads found, with its pattern. */
  let known = new Map<string, string>();

  /** The names that must be held: watched even while free (else missing, not flagged free). */
  function expectedLocks(): Map<string, string> {
    return new Map([...configured.values()].filter((entry) => entry.mustBeHeld).map((entry) => [entry.name, getLockPatternOf(entry.name, configured)]));
  }

  function settleStart(startedAtMs: number, isExact: boolean): string {
    const previous = serverStartedAt === null ? null : Date.parse(serverStartedAt);
    if (!isExact && previous !== null && Math.abs(previous - startedAtMs) <= START_TOLERANCE_MS) return serverStartedAt!;
    return new Date(startedAtMs).toISOString();
  }

  async function detectMode(): Promise<ServerMode> {
    const { probes, requests: sent } = await probeServer(connection);
    requests += sent;
    serverStartedAt = settleStart(probes.startedAtMs, probes.isStartExact);
    const chosen = chooseGetLockMode(probes, { namesCount: names.length, setting });
    if (chosen.line !== loggedLine) log(`database ${config.name}: ${chosen.line}`);
    loggedLine = chosen.line;
    mode = chosen;
    return chosen;
  }

  async function readLocks(): Promise<Read> {
    const current = mode ?? (await detectMode());
    const query = locksQueryOf(current.mode, names, (await connection.server()).flavor);
    let rows: GetLockRow[] = [];
    if (query !== null) {
      requests += 1;
      rows = (await connection.read(query.sql, query.values)).flatMap((raw) => toGetLockRow(raw) ?? []);
    }
    const observedMs = Date.now();
    const groups = groupGetLockRows(rows, configured);
    for (const group of groups.values()) known.set(group.resourceKey, group.pattern);
    outage.answered(`${groups.size} GET_LOCK locks held`);
    const context: GetLockReadContext = { engine: config.engine, mode: current.mode, serverStartedAt: serverStartedAt ?? "?", observedMs };
    return { groups, context, mode: current };
  }

  function describeFailure(error: unknown): string {
    const line = describeMysqlError(error, config);
    outage.failed(line);
    // What the server offers may change while it is away (a restart without performance_schema).
    mode = null;
    return line;
  }

  /** Whether a read of this mode answered for the lock: by name, only the configured names are read. */
  const isReadBy = (read: Read, key: string) => read.mode.mode !== "names" || configured.has(key);

  return {
    async discover() {
      mode = null;
      let read: Read;
      try {
        read = await readLocks();
      } catch (error) {
        return { keys: [], errors: [{ message: describeFailure(error) }], isComplete: false };
      }
      discoveryRead.keep(read);
      const found = new Map([...expectedLocks(), ...[...read.groups.values()].map((group) => [group.resourceKey, group.pattern] as const)]);
      // By name, every configured name is read: each is a lock, held or free.
      if (read.mode.mode === "names") for (const name of names) found.set(name, getLockPatternOf(name, configured));
      // A lock found before that this mode cannot read stays known: its reads fail (stale), it is not gone.
      known = new Map([...known].filter(([key]) => found.has(key) || !isReadBy(read, key)));
      for (const [key, pattern] of found) known.set(key, pattern);
      return { keys: [...known].map(([key, pattern]) => ({ key, pattern })), errors: [], isComplete: true };
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
      const observations: HoldObservation[] = [];
      const errors: HoldReadError[] = [];
      for (const ref of refs) {
        const group = read.groups.get(ref.key);
        if (group !== undefined) observations.push(toGetLockObservation(group, read.context));
        else if (isReadBy(read, ref.key)) observations.push(toFreeGetLockObservation(ref, read.context));
        else errors.push({ key: ref.key, message: `not read: it is not in names, and ${read.mode.line}` });
      }
      return { observations, errors };
    },

    async checkHolders(tokens) {
      const current = mode;
      if (current === null) return new Map();
      const answers = new Map<string, HolderLiveness>();
      const asked: { token: string; connectionId: number }[] = [];
      for (const token of tokens) {
        const parsed = parseGetLockToken(token);
        if (parsed === null) continue;
        // The server restarted since: every connection of before ended with it.
        if (parsed.serverStartedAt !== serverStartedAt) answers.set(token, "gone");
        else asked.push({ token, connectionId: parsed.connectionId });
      }
      // Without PROCESS, PROCESSLIST hides other users' connections: absent says nothing.
      if (asked.length === 0 || !current.canSeeConnections) return answers;
      requests += 1;
      const sql = current.mode === "performance_schema" ? THREADS_ALIVE_SQL : PROCESSLIST_ALIVE_SQL;
      const rows = await connection.read(sql, [asked.map((entry) => entry.connectionId)]);
      const alive = new Set(rows.map((row) => Number(row.connection_id)));
      for (const { token, connectionId } of asked) answers.set(token, alive.has(connectionId) ? "alive" : "gone");
      return answers;
    },

    patternOf: (key) => known.get(key) ?? null,

    async watch() {
      // Neither MariaDB nor MySQL signals a lock change: every read is a poll.
      return { mode: "none", stop: async () => {} };
    },

    takeRequestCount() {
      const count = requests;
      requests = 0;
      return count;
    },
    currentMode: () => mode,
    close: () => connection.close(),
  };
}
