// Change detection for locks, shared by every lock-like source kind: a pure function of
// (previous state, new observation, the change hint that arrived in between). Like Pulsar's, it
// never invents a change: a lock seen for the first time has none, and failed reads only make
// the state stale (markStale), keeping the last known holder.
//
// acquired -> HOLDER_APPEARED; released -> HOLDER_LOST ending RELEASED (the lock went before its
// TTL could have ended, or a release hint said so); expired while held -> HOLDER_LOST ending
// EXPIRED (gone at or after its expiry, with its session, or an expiry hint said so); a new
// token -> HOLDER_CHANGED, ending as classifyEnding tells (taken over only where Baton knows the
// old holder lived on). A TTL extension or a watchdog renewal keeps the token: not a change.

import { classifyHolderTransition, type HolderTransition } from "@/lib/poller/classify-holder-transition";
import type { HoldChange, HoldEnding, HoldState, HoldStats } from "@/lib/poller/hold-state";
import type { ChangePrediction } from "@/lib/poller/change";
import { type PredictNextHolder, scorePrediction } from "@/lib/poller/next-holder";
import type { HoldHint, HoldObservation } from "@/lib/poller/contract/hold-observation";

export type HoldDetection = { next: HoldState; changes: HoldChange[] };

/** Less than this share of the tenure's largest TTL left counts as "close to zero". */
const NEAR_EXPIRY_SHARE = 0.2;

const ms = (iso: string) => Date.parse(iso);

/**
 * How the previous hold ended. What the source itself saw wins: its own record of the ending, a
 * release or expiry signal. Then the previous holder's session or lease, as the source found it
 * after the read: gone before the deadline Baton last read means the holder ended its session
 * (released); gone at or after it, or with no deadline read, the hold ended with its session
 * (expired). Then the clock. "Taken over" is the strongest claim a lock page makes (two holders
 * may have overlapped): it is made only where the old holder is known to live on, or where the
 * new token came before an expiry read to the millisecond. Otherwise the ending is not known
 * (null), never guessed.
 */
export function classifyEnding(transition: HolderTransition, prev: HoldState, obs: HoldObservation, hint: HoldHint | null): HoldEnding | null {
  // A Redlock split is no ending of the hold: no majority agrees on anything (its own health flag).
  if (transition === "HOLDER_APPEARED" || obs.isSplit) return null;
  if (obs.previousEnding === "EXPIRED" || hint?.kind === "expiry") return "EXPIRED";
  // A delete the source saw a client make (a release hint: a Redis `del`, an etcd key deleted
  // while its lease lived) outweighs the clock: the expiry Baton last read is a lower bound where
  // holders renew.
  if (obs.previousEnding === "RELEASED" || hint?.kind === "release") return "RELEASED";
  const isBeforeExpiry = prev.expiresAt !== null && ms(obs.observedAt) < ms(prev.expiresAt);
  if (obs.previousHolder === "gone") return isBeforeExpiry ? "RELEASED" : "EXPIRED";
  if (prev.expiresAt !== null && !isBeforeExpiry) return "EXPIRED";
  // Lost, or the same holder back under a new token: it let go before its expiry.
  if (transition !== "HOLDER_CHANGED") return "RELEASED";
  if (obs.previousHolder === "alive") return "TAKEN_OVER";
  return isBeforeExpiry && obs.isExpiryCoarse !== true ? "TAKEN_OVER" : null;
}

/**
 * When the new hold began, as far as the two observations tell: where the tenure's TTL is known
 * (a fixed-TTL lock), the TTL already used up says how long ago it was taken, bounded by the
 * previous observation; otherwise the observation that first saw it.
 */
function estimateAcquiredAt(prev: HoldState, obs: HoldObservation): string {
  const fullTtl = prev.stats.tenureMaxTtlMs;
  if (fullTtl === null || obs.ttlMs === null || obs.ttlMs > fullTtl || prev.lastObservedAt === null) return obs.observedAt;
  const estimate = ms(obs.observedAt) - (fullTtl - obs.ttlMs);
  return new Date(Math.max(estimate, ms(prev.lastObservedAt) + 1)).toISOString();
}

function nextStats(prev: HoldState | undefined, obs: HoldObservation, isNewTenure: boolean): HoldStats {
  // A hold that just ended lasted at least from its start to the last observation that saw it.
  const endedMs = isNewTenure && prev?.holderSince && prev.lastObservedAt ? ms(prev.lastObservedAt) - ms(prev.holderSince) : 0;
  const longestHoldMs = Math.max(prev?.stats.longestHoldMs ?? 0, endedMs);
  if (isNewTenure || prev === undefined) return { tenureMaxTtlMs: obs.ttlMs, nearExpiryCount: 0, longestHoldMs };
  const tenureMaxTtlMs = obs.ttlMs === null ? prev.stats.tenureMaxTtlMs : Math.max(prev.stats.tenureMaxTtlMs ?? 0, obs.ttlMs);
  const isNearExpiry = obs.holder !== null && obs.ttlMs !== null && tenureMaxTtlMs !== null && obs.ttlMs < tenureMaxTtlMs * NEAR_EXPIRY_SHARE;
  return { tenureMaxTtlMs, nearExpiryCount: prev.stats.nearExpiryCount + (isNearExpiry ? 1 : 0), longestHoldMs };
}

function buildState(obs: HoldObservation, fields: Pick<HoldState, "holderSince" | "lastChangeAt" | "stats" | "lastErrorAt">): HoldState {
  const { observedAt, previousEnding: _ending, previousHolder: _holder, concurrentHolds: _concurrent, ...seen } = obs;
  return { ...seen, ...fields, lastObservedAt: observedAt, staleSince: null, lastError: null, goneAt: null };
}

/**
 * The score of a lock's holder change against the next holder predicted from `prev`. Not scored:
 * a loss while someone was queued (the queue's head may be about to take it: a Redisson fair lock
 * is free until the head's thread retries; the next change shows it), and a hand-over from an
 * empty queue (a contender that came after the observation took it: "nobody queued" was no claim
 * about newcomers).
 */
function scoreHoldChange(transition: HolderTransition, prev: HoldState, obs: HoldObservation, predictNextHolder: PredictNextHolder): ChangePrediction | null {
  const predicted = predictNextHolder(prev.waiters, prev.details);
  const isQueueEmpty = predicted.reason === null && predicted.holder === null;
  if (transition === "HOLDER_LOST" && predicted.holder !== null) return null;
  if (transition === "HOLDER_CHANGED" && isQueueEmpty) return null;
  return scorePrediction(transition, predicted, obs.holder);
}

export function detectHoldChanges(
  prev: HoldState | undefined,
  obs: HoldObservation,
  /** The change signal that arrived since the last read, if any: its kind tells how a hold ended. */
  hint: HoldHint | null = null,
  /** The lock kind's next-in-line rule (its description's): changes are scored against the next holder only with it. */
  predictNextHolder?: PredictNextHolder,
): HoldDetection {
  // node-redlock and go-redsync return once a majority answered: the last master is written or
  // cleared a moment later, which reads as a split for one observation. Only a split seen twice
  // in a row is one: the first keeps the holder it had, flagged, and its last sighting (the
  // interval of the change, if it is one, starts there).
  if (obs.isSplit && prev !== undefined && prev.lastObservedAt !== null && !prev.isSplit && prev.holder !== null) {
    return { changes: [], next: { ...prev, isSplit: true, details: obs.details, staleSince: null, lastError: null } };
  }
  if (prev === undefined || prev.lastObservedAt === null) {
    const holderSince = obs.holder === null ? null : obs.observedAt;
    return {
      changes: [],
      next: buildState(obs, {
        holderSince,
        lastChangeAt: prev?.lastChangeAt ?? null,
        stats: nextStats(prev, obs, true),
        lastErrorAt: prev?.lastErrorAt ?? null,
      }),
    };
  }
  const transition = classifyHolderTransition({ holder: prev.holder, session: prev.holderToken }, { holder: obs.holder, session: obs.holderToken });
  if (transition === null) {
    const holderSince = obs.holder === null ? null : prev.holderSince;
    return {
      changes: [],
      next: buildState(obs, { holderSince, lastChangeAt: prev.lastChangeAt, stats: nextStats(prev, obs, false), lastErrorAt: prev.lastErrorAt }),
    };
  }

  const isDuringGap = prev.staleSince !== null;
  const ending = classifyEnding(transition, prev, obs, hint);
  const holderSince = obs.holder === null ? null : estimateAcquiredAt(prev, obs);
  const change: HoldChange = {
    resourceKey: obs.resourceKey,
    kind: transition,
    cause: isDuringGap ? "UNKNOWN" : "CLIENT",
    ending,
    fromHolder: prev.holder,
    toHolder: obs.holder,
    oldSeenAt: prev.lastObservedAt,
    newSeenAt: obs.observedAt,
    isDuringGap,
    details: {
      tokenBefore: prev.holderToken,
      tokenAfter: obs.holderToken,
      expiresAtBefore: prev.expiresAt,
      heldSince: prev.holderSince,
      acquiredAt: holderSince,
      waitersBefore: prev.waiters,
      waitersAfter: obs.waiters,
      // The signal in the source's own words (a Redis keyspace event, an etcd watch event...).
      hint: hint?.event ?? null,
      // The kind's own details on both sides (a ZooKeeper session, etcd revisions and lease, a
      // lock table's record version): the timeline's change list tells the change in them.
      sourceBefore: prev.details,
      sourceAfter: obs.details,
      ...(obs.isSplit ? { isSplit: true } : {}),
    },
    prediction: predictNextHolder === undefined ? null : scoreHoldChange(transition, prev, obs, predictNextHolder),
  };
  return {
    changes: [change],
    next: buildState(obs, { holderSince, lastChangeAt: obs.observedAt, stats: nextStats(prev, obs, true), lastErrorAt: prev.lastErrorAt }),
  };
}
