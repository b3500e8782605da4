import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import { toFreeLockObservation } from "./free-observation";
import type { GetLockMode } from "./get-lock-mode";
import type { GetLockRow } from "./get-lock-rows";
import { UNNAMED_PATTERN } from "./lock-observation";

// One GET_LOCK read's rows -> the observation of each lock. Pure.
//
// A lock is a name, server-wide (GET_LOCK names belong to no database). Its holder is the
// connection granted it; the token is that connection's id and the server's start, so that a
// new connection is a new hold, also after a restart, which begins the ids again. No TTL: a
// hold lasts until RELEASE_LOCK (RELEASE_ALL_LOCKS) or the connection's end (expiresAt null).
// Waiters (performance_schema only) queue in the order they asked: the server serves them so.

export type GetLockEngine = "mariadb" | "mysql";

/** A configured name: watched even while free where it must be held, and the only kind read by name. */
export type GetLockName = { name: string; mustBeHeld: boolean };

/** The plugin cuts names to 64 characters (a 100-character name came back as its first 64). */
const PLUGIN_NAME_LENGTH = 64;

export type ConnectionFacts = {
  connectionId: number;
  user: string | null;
  host: string | null;
  db: string | null;
  command: string | null;
  state: string | null;
};

export type GetLockDetails = {
  /** What tells these details from the advisory locks' and the tables'. */
  lockFunction: "GET_LOCK";
  engine: GetLockEngine;
  name: string;
  /** How the server was read (get-lock-mode.ts): only performance_schema sees waiters. */
  readMode: GetLockMode;
  lockType?: string;
  holderConnection?: ConnectionFacts;
  /** Seconds the holder has been in its current command: moves on every read (DATABASE_MOVING_DETAILS). */
  holderTimeSeconds?: number;
  waiting?: ConnectionFacts[];
};

export type GetLockReadContext = {
  engine: GetLockEngine;
  mode: GetLockMode;
  /** When the server started (ISO, whole seconds): part of every token. */
  serverStartedAt: string;
  /** When the read's answer arrived. */
  observedMs: number;
};

/** The rows of one name, keyed by resource key (the name). */
export type GetLockGroup = { resourceKey: string; pattern: string; name: string; rows: GetLockRow[] };

/** A name as a glob that matches only itself (the lock pages match patterns as globs). */
export function literalPattern(name: string): string {
  return name.replace(/[*?[\]\\]/g, "\\$&");
}

/** The pattern a lock belongs to: its configured name's, else the unconfigured names'. */
export function getLockPatternOf(name: string, configured: ReadonlyMap<string, GetLockName>): string {
  return configured.has(name) ? literalPattern(name) : UNNAMED_PATTERN;
}

/** The configured name a row names: itself, or the one configured name the plugin's 64 characters begin. */
function resolveName(rowName: string, configured: ReadonlyMap<string, GetLockName>): string {
  if (configured.has(rowName) || rowName.length !== PLUGIN_NAME_LENGTH) return rowName;
  const longer = [...configured.keys()].filter((name) => name.length > PLUGIN_NAME_LENGTH && name.startsWith(rowName));
  return longer.length === 1 ? longer[0]! : rowName;
}

export function groupGetLockRows(rows: readonly GetLockRow[], configured: ReadonlyMap<string, GetLockName>): Map<string, GetLockGroup> {
  const groups = new Map<string, GetLockGroup>();
  for (const row of rows) {
    const name = resolveName(row.name, configured);
    let group = groups.get(name);
    if (group === undefined) {
      group = { resourceKey: name, pattern: getLockPatternOf(name, configured), name, rows: [] };
      groups.set(name, group);
    }
    group.rows.push(row);
  }
  return groups;
}

/** How a connection is named on the pages: `app@10.0.0.7 conn 42`, or `conn 42` where the user cannot see it. */
export function connectionLabel(row: Pick<GetLockRow, "connectionId" | "user" | "host">): string {
  if (row.user === null) return `conn ${row.connectionId}`;
  return `${row.user}${row.host ? `@${row.host}` : ""} conn ${row.connectionId}`;
}

/** The holder's token: its connection id and the server's start (ids begin again after a restart). */
export function getLockToken(connectionId: number, serverStartedAt: string): string {
  return `${connectionId}@${serverStartedAt}`;
}

/** A token back into its connection id and server start (null for another kind of token). */
export function parseGetLockToken(token: string): { connectionId: number; serverStartedAt: string } | null {
  const match = /^(\d+)@(.+)$/.exec(token);
  return match === null ? null : { connectionId: Number(match[1]), serverStartedAt: match[2]! };
}

function connectionFacts(row: GetLockRow): ConnectionFacts {
  return { connectionId: row.connectionId, user: row.user, host: row.host, db: row.db, command: row.command, state: row.state };
}

/**
 * Waiters in the order they asked: by their statement's start on the server's timer where both
 * have one, else the longer waiting first (milliseconds, else whole seconds), else the older
 * connection.
 */
function compareWaiters(a: GetLockRow, b: GetLockRow): number {
  if (a.waitOrder !== null && b.waitOrder !== null && a.waitOrder !== b.waitOrder) return a.waitOrder < b.waitOrder ? -1 : 1;
  if (a.waitedMs !== null && b.waitedMs !== null && a.waitedMs !== b.waitedMs) return b.waitedMs - a.waitedMs;
  return (b.timeSeconds ?? 0) - (a.timeSeconds ?? 0) || a.connectionId - b.connectionId;
}

function baseDetails(name: string, context: GetLockReadContext): GetLockDetails {
  return { lockFunction: "GET_LOCK", engine: context.engine, name, readMode: context.mode };
}

/** One name as seen by a read: its holder (the connection granted it) and, with performance_schema, its waiters in order. */
export function toGetLockObservation(group: GetLockGroup, context: GetLockReadContext): HoldObservation {
  // A connection that took the name twice (GET_LOCK nests) is one holder.
  const granted = [...new Map(group.rows.filter((row) => row.isGranted).map((row) => [row.connectionId, row])).values()].sort(
    (a, b) => a.connectionId - b.connectionId,
  );
  const waiting = group.rows.filter((row) => !row.isGranted).sort(compareWaiters);
  const holder = granted[0];
  const details = baseDetails(group.name, context);
  if (holder !== undefined) {
    if (holder.lockType !== null) details.lockType = holder.lockType;
    details.holderConnection = connectionFacts(holder);
    if (holder.timeSeconds !== null) details.holderTimeSeconds = holder.timeSeconds;
  }
  if (waiting.length > 0) details.waiting = waiting.map(connectionFacts);
  return {
    resourceKey: group.resourceKey,
    pattern: group.pattern,
    holder: holder === undefined ? null : connectionLabel(holder),
    holderToken: holder === undefined ? null : getLockToken(holder.connectionId, context.serverStartedAt),
    // No TTL: held until unlock or session end.
    expiresAt: null,
    ttlMs: null,
    waiters: waiting.map(connectionLabel),
    observedAt: new Date(context.observedMs).toISOString(),
    isSplit: false,
    details: details as Record<string, unknown>,
  };
}

/** A name the read answered for, that no connection holds or waits for: free. */
export function toFreeGetLockObservation(ref: { key: string; pattern: string }, context: GetLockReadContext): HoldObservation {
  return toFreeLockObservation(ref, context.observedMs, baseDetails(ref.key, context) as Record<string, unknown>);
}
