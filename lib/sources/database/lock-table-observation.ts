import type { ConcurrentHold, ConcurrentHolds, HoldObservation } from "@/lib/poller/contract/hold-observation";

import type { QuartzExecutionFacts, QuartzInstanceFacts, TableLockRow } from "./lock-table-rows";

// A lock table's rows -> hold observations, and how each hold ended, told from the rows
// themselves. A row is held while its expiry (lock_until, EXPIRED_AFTER, CREATED_DATE + ttl) is
// after the database's clock of the same read; expiresAt is that expiry, ttlMs what is left of it.
//
// Endings, from what the last read saw of the lock and what this one sees:
// - the same hold, its expiry moved earlier (ShedLock's release: lock_until set to the unlock
//   instant, or to lockAtLeastFor's end): released, and free once that passes -> RELEASED;
// - the same hold, its expiry passed unchanged -> EXPIRED;
// - the row gone (Spring's release DELETEs it) before its expiry -> RELEASED (after it: the
//   shared rule tells it by the clock);
// - a new hold (new locked_at or locked_by; new CLIENT_ID): the old one was taken over by an
//   UPDATE that only succeeds once it expired (ShedLock's `lock_until <= now`, Spring's
//   `EXPIRED_AFTER < now`, CREATED_DATE kept on 7.x) -> EXPIRED, unless it began before the old
//   expiry (a release, then a new take) -> RELEASED.
// Quartz (the read says which instances still check in): the execution's row gone, or another
// execution now the holder, while its instance still checks in -> RELEASED (it completed); its
// instance stopped checking in (check-in interval + 7.5 s passed: the row stays until another node
// recovers it, deleting it) -> EXPIRED, the ending Quartz's own recovery uses.
//
// Double runs the rows themselves show, each a violation (concurrentHolds):
// - Quartz: a job's executions on two nodes at once (a second EXECUTING row of a held job);
// - ShedLock: a job that outran its lockAtMostFor. Its hold expired while it ran, another node
//   took the row (new locked_at, locked_by), and the first node's release, an UPDATE of lock_until
//   by name alone (shedlock-provider-jdbc checks no locked_by), lands on the new hold: that hold
//   is released twice. A hold seen free after a release whose lock_until is written again can
//   only be written by an unlock (ShedLock's extend needs lock_until still ahead, an acquire
//   writes a new locked_at): two nodes released one acquisition, so the node of the hold before
//   it, which expired unreleased, ran beside it.
// Pure, but for the memory of the last read, which the caller keeps per lock.

/** What a read saw of one lock, kept for the next read's endings. */
export type TableLockMemory = {
  token: string;
  holder: string;
  startedMs: number;
  /** The latest expiry this hold had (an extension or a renewal moves it later). */
  maxExpiresMs: number;
  /** The expiry the read saw. Earlier than maxExpiresMs: released (ShedLock). */
  expiresMs: number;
  isHeld: boolean;
  /** Quartz: the holder's instance, "<sched_name>/<instance_name>". */
  holderInstance?: string;
  /** ShedLock: the hold before this one, where it expired unreleased (its node may still run the job). */
  expiredBefore?: ConcurrentHold;
};

/** The memory of a lock after a read that saw `row`. */
export function rememberRow(previous: TableLockMemory | undefined, row: TableLockRow, dbNowMs: number): TableLockMemory {
  const isSameHold = previous !== undefined && previous.token === row.token;
  const expiredBefore = isSameHold ? previous.expiredBefore : expiredUnreleased(previous, row);
  return {
    token: row.token,
    holder: row.holder,
    startedMs: row.startedMs,
    maxExpiresMs: isSameHold ? Math.max(previous.maxExpiresMs, row.expiresMs) : row.expiresMs,
    expiresMs: row.expiresMs,
    isHeld: row.expiresMs > dbNowMs,
    ...(row.holderInstance !== undefined ? { holderInstance: row.holderInstance } : {}),
    ...(expiredBefore !== undefined ? { expiredBefore } : {}),
  };
}

/** ShedLock: the previous hold, where `row` is a new hold taken once it expired without a release. */
function expiredUnreleased(previous: TableLockMemory | undefined, row: TableLockRow): ConcurrentHold | undefined {
  if (previous === undefined || row.details.format !== "shedlock") return undefined;
  const wasReleased = previous.expiresMs < previous.maxExpiresMs;
  if (wasReleased || row.startedMs < previous.maxExpiresMs) return undefined;
  return { holder: previous.holder, token: previous.token, since: new Date(previous.startedMs).toISOString() };
}

/** How the hold the last read saw ended, as this read's row (or its absence) tells; undefined where the rows do not say. */
export function endingOf(
  previous: TableLockMemory | undefined,
  row: TableLockRow | undefined,
  dbNowMs: number,
  checkingIn?: ReadonlySet<string>,
): "RELEASED" | "EXPIRED" | undefined {
  if (previous === undefined || !previous.isHeld) return undefined;
  if (previous.holderInstance !== undefined && checkingIn !== undefined) {
    if (row !== undefined && row.token === previous.token) return row.expiresMs > dbNowMs ? undefined : "EXPIRED";
    return checkingIn.has(previous.holderInstance) ? "RELEASED" : "EXPIRED";
  }
  const wasReleased = previous.expiresMs < previous.maxExpiresMs;
  if (row === undefined) return wasReleased || dbNowMs < previous.expiresMs ? "RELEASED" : undefined;
  if (row.token === previous.token) {
    if (row.expiresMs > dbNowMs) return undefined;
    return wasReleased || row.expiresMs < previous.maxExpiresMs ? "RELEASED" : "EXPIRED";
  }
  // Another hold: taken by an UPDATE of the expired row (CREATED_DATE kept), or after a release.
  if (row.startedMs === previous.startedMs) return "EXPIRED";
  return wasReleased || row.startedMs < previous.maxExpiresMs ? "RELEASED" : "EXPIRED";
}

/**
 * Quartz: the other executions of a held job running at once with the holder's (a job without
 * @DisallowConcurrentExecution fired on two nodes, or twice on one), each a double run. An
 * execution whose instance stopped checking in is not running any more (its row waits for
 * recovery): not counted. Read from the details toQuartzRows built (its own types, not a vendor's).
 */
function quartzConcurrentHolds(row: TableLockRow): ConcurrentHolds | undefined {
  if (row.details.format !== "quartz") return undefined;
  const shared = (row.details.sharedHolders ?? []) as QuartzExecutionFacts[];
  const instances = (row.details.schedulerInstances ?? []) as QuartzInstanceFacts[];
  const live = new Set(instances.filter((instance) => instance.isCheckingIn).map((instance) => instance.instanceName));
  const others = shared
    .filter((execution) => live.has(execution.instanceName))
    .map((execution) => ({ holder: execution.instanceName, token: `quartz:${execution.entryId}`, since: execution.firedAt }));
  if (others.length === 0) return undefined;
  return { seenBy: "quartz", holder: { holder: row.holder, token: row.token, since: new Date(row.startedMs).toISOString() }, others };
}

/**
 * ShedLock: a hold seen free after a release, whose lock_until is written again: released twice,
 * once by the node of the hold before it, which ran beside it (see the top of this file).
 */
function shedlockLateRelease(previous: TableLockMemory | undefined, row: TableLockRow | undefined): ConcurrentHolds | undefined {
  if (row === undefined || row.details.format !== "shedlock" || previous === undefined || previous.token !== row.token) return undefined;
  const wasReleased = previous.expiresMs < previous.maxExpiresMs;
  if (previous.expiredBefore === undefined || previous.isHeld || !wasReleased || row.expiresMs === previous.expiresMs) return undefined;
  return {
    seenBy: "shedlock",
    holder: { holder: row.holder, token: row.token, since: new Date(row.startedMs).toISOString() },
    others: [previous.expiredBefore],
  };
}

/** One table lock as this read saw it: held until its expiry, then free with its last row in the details. */
export function toTableObservation(
  ref: { key: string; pattern: string },
  row: TableLockRow | undefined,
  context: {
    dbNowMs: number;
    observedMs: number;
    previous: TableLockMemory | undefined;
    lastDetails: Record<string, unknown> | undefined;
    /** Quartz: the instances that still check in at this read. */
    checkingIn?: ReadonlySet<string>;
  },
): HoldObservation {
  const ending = endingOf(context.previous, row, context.dbNowMs, context.checkingIn);
  const isHeld = row !== undefined && row.expiresMs > context.dbNowMs;
  const isReleasedEarly = isHeld && context.previous?.token === row.token && row.expiresMs < context.previous.maxExpiresMs;
  const concurrentHolds = isHeld ? quartzConcurrentHolds(row) : shedlockLateRelease(context.previous, row);
  return {
    resourceKey: ref.key,
    pattern: ref.pattern,
    holder: isHeld ? row.holder : null,
    holderToken: isHeld ? row.token : null,
    expiresAt: isHeld ? new Date(row.expiresMs).toISOString() : null,
    ttlMs: isHeld ? row.expiresMs - context.dbNowMs : null,
    waiters: [],
    observedAt: new Date(context.observedMs).toISOString(),
    isSplit: false,
    details: {
      ...(row?.details ?? context.lastDetails ?? {}),
      // Released, but ShedLock's lockAtLeastFor keeps the name until lock_until.
      ...(isReleasedEarly ? { isReleased: true } : {}),
      ...(row === undefined ? { isRowGone: true } : {}),
    },
    ...(ending !== undefined ? { previousEnding: ending } : {}),
    ...(concurrentHolds !== undefined ? { concurrentHolds } : {}),
  };
}
