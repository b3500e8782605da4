import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import type { KeyName } from "./advisory-keys";
import type { AdvisoryLockRow } from "./advisory-lock-rows";
import { toFreeLockObservation } from "./free-observation";

// One read's rows -> the observation of each advisory lock. Pure.
//
// A lock is a key in one database. Its holder is the session granted it (for a shared lock, the
// oldest of the sessions granted it; the others are listed); the token is that session's pid and
// backend start, so that a new session of the same application is a new hold (pids are reused).
// No TTL: a hold lasts until unlock, transaction end or session end (expiresAt null). Waiters
// queue in the order they started waiting (PostgreSQL grants advisory locks first come, first
// served).

/** The details that move on every read of an unchanged hold (GET_LOCK's holderTimeSeconds: get-lock-observation.ts). */
export const DATABASE_MOVING_DETAILS: readonly string[] = ["idleInTransactionForMs", "schedulerInstances", "holderTimeSeconds"];

/** The pattern of the keys no configured name covers. */
export const UNNAMED_PATTERN = "*";

export type SessionFacts = {
  pid: number;
  applicationName: string | null;
  user: string | null;
  clientAddr: string | null;
  sessionStartedAt: string | null;
  transactionStartedAt: string | null;
  state: string | null;
};

export type WaiterFacts = SessionFacts & { waitingSince: string | null; blockedBy: number[] };

export type DatabaseLockDetails = {
  database: string;
  key: string;
  keyForm: "bigint" | "int4-pair";
  name?: string;
  library?: string;
  mode?: string;
  holderSession?: SessionFacts;
  /** A shared lock's other holders. */
  sharedHolders?: SessionFacts[];
  waiting?: WaiterFacts[];
  /** The holder is "idle in transaction": since how long (needs pg_read_all_stats). */
  idleInTransactionForMs?: number;
  /** Idle in transaction longer than the configured bound: the classic stuck lock. */
  isStuckIdleInTransaction?: boolean;
};

export type LockReadContext = {
  /** The names of one database's keys (configured keys and library hashes). */
  namesOf(database: string): Map<string, KeyName>;
  idleInTransactionMaxMs: number;
  /** When the read's answer arrived. */
  observedMs: number;
};

/** The resource key of a lock: "<database>/<name>" for a named key, else "<database>/<key>". */
export function resourceKeyOf(database: string, key: string, name: KeyName | undefined): string {
  return `${database}/${name?.name ?? key}`;
}

/** The pattern a lock belongs to: its configured name's ("*\/<name>"), else the unnamed keys'. */
export function patternOf(name: KeyName | undefined): string {
  return name === undefined ? UNNAMED_PATTERN : `*/${name.name}`;
}

/** How a session is named on the pages: its application name and pid (pids tell two sessions of one app apart). */
export function sessionLabel(row: Pick<AdvisoryLockRow, "applicationName" | "pid">): string {
  return row.applicationName ? `${row.applicationName} pid ${row.pid}` : `pid ${row.pid}`;
}

/** The holder's token: pid and backend start, or the pid alone where the role may not see the start. */
export function sessionToken(row: Pick<AdvisoryLockRow, "pid" | "backendStart">): string {
  return row.backendStart === null ? `${row.pid}` : `${row.pid}@${row.backendStart.toISOString()}`;
}

/** A token back into its pid and backend start (null where it carries none). */
export function parseSessionToken(token: string): { pid: number; backendStart: string | null } | null {
  const match = /^(\d+)(?:@(.+))?$/.exec(token);
  return match === null ? null : { pid: Number(match[1]), backendStart: match[2] ?? null };
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

function sessionFacts(row: AdvisoryLockRow): SessionFacts {
  return {
    pid: row.pid,
    applicationName: row.applicationName,
    user: row.user,
    clientAddr: row.clientAddr,
    sessionStartedAt: iso(row.backendStart),
    transactionStartedAt: iso(row.xactStart),
    state: row.state,
  };
}

const startMs = (row: AdvisoryLockRow) => row.backendStart?.getTime() ?? Number.POSITIVE_INFINITY;

/** The rows of one lock (one database and key) grouped, keyed by resource key. */
export type LockGroup = {
  resourceKey: string;
  pattern: string;
  database: string;
  key: string;
  keyForm: number;
  name: KeyName | undefined;
  rows: AdvisoryLockRow[];
};

export function groupRows(rows: readonly AdvisoryLockRow[], context: Pick<LockReadContext, "namesOf">): Map<string, LockGroup> {
  const groups = new Map<string, LockGroup>();
  for (const row of rows) {
    const database = row.database ?? "(unknown database)";
    const name = context.namesOf(database).get(row.lockKey);
    const resourceKey = resourceKeyOf(database, row.lockKey, name);
    let group = groups.get(resourceKey);
    if (group === undefined) {
      group = { resourceKey, pattern: patternOf(name), database, key: row.lockKey, keyForm: row.keyForm, name, rows: [] };
      groups.set(resourceKey, group);
    }
    group.rows.push(row);
  }
  return groups;
}

function baseDetails(group: Pick<LockGroup, "database" | "key" | "keyForm" | "name">): DatabaseLockDetails {
  return {
    database: group.database,
    key: group.key,
    keyForm: group.keyForm === 1 ? "bigint" : "int4-pair",
    ...(group.name !== undefined ? { name: group.name.name } : {}),
    ...(group.name?.library ? { library: group.name.library } : {}),
  };
}

/** One lock as seen by a read: its holder (the oldest granted session), shared holders, waiters by wait start. */
export function toHoldObservation(group: LockGroup, context: LockReadContext): HoldObservation {
  // A session holding the same key twice (session and transaction level) is one holder.
  const granted = [...new Map(group.rows.filter((row) => row.isGranted).map((row) => [row.pid, row])).values()].sort(
    (a, b) => startMs(a) - startMs(b) || a.pid - b.pid,
  );
  const waiting = group.rows
    .filter((row) => !row.isGranted)
    .sort((a, b) => (a.waitStart?.getTime() ?? Number.POSITIVE_INFINITY) - (b.waitStart?.getTime() ?? Number.POSITIVE_INFINITY) || a.pid - b.pid);
  const details = baseDetails(group);
  const holder = granted[0];
  if (holder !== undefined) {
    details.mode = holder.mode;
    details.holderSession = sessionFacts(holder);
    if (granted.length > 1) details.sharedHolders = granted.slice(1).map(sessionFacts);
    if (holder.state === "idle in transaction" && holder.stateChange !== null) {
      const idleMs = Math.max(0, context.observedMs - holder.stateChange.getTime());
      details.idleInTransactionForMs = idleMs;
      details.isStuckIdleInTransaction = idleMs > context.idleInTransactionMaxMs;
    }
  }
  if (waiting.length > 0) {
    details.waiting = waiting.map((row) => ({ ...sessionFacts(row), waitingSince: iso(row.waitStart), blockedBy: row.blockedBy ?? [] }));
  }
  return {
    resourceKey: group.resourceKey,
    pattern: group.pattern,
    holder: holder === undefined ? null : sessionLabel(holder),
    holderToken: holder === undefined ? null : sessionToken(holder),
    // No TTL: held until unlock, transaction end or session end.
    expiresAt: null,
    ttlMs: null,
    waiters: waiting.map(sessionLabel),
    observedAt: new Date(context.observedMs).toISOString(),
    isSplit: false,
    details: details as Record<string, unknown>,
  };
}

/** A lock Baton knew of that no session holds or waits for now: free. */
export function toFreeObservation(
  ref: { key: string; pattern: string },
  observedMs: number,
  known: Pick<LockGroup, "database" | "key" | "keyForm" | "name"> | undefined,
): HoldObservation {
  return toFreeLockObservation(ref, observedMs, known === undefined ? {} : (baseDetails(known) as Record<string, unknown>));
}
