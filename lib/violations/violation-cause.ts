// Why a violation happened: one cause per violation, by one precedence, told the same way on
// every page, in the read API and in alerts. Client-safe and pure.
//
// The precedence (docs/http-api.md, "Violation causes"), first match wins:
// 1. rollout: inside a deployment window of the violation's own service. The team declared
//    that overlaps were expected then; the rollout's restarts explain whatever else coincides.
//    (So the rollout count is exactly the "inside deployments" count of the charts' rollups,
//    and the chart, the list and the violations alert, which counts outside deployments, agree.)
// 1b. two-hands: Baton's poller saw the two holds itself, in the lock's own records (a Quartz
//    job's executions on two nodes at once, a ShedLock hold released twice): a fact, not an inference, so no handover or stall
//    explains it away.
// 2. holder-stalled: the lock the work ran under expired while held within the window: the
//    holder stalled past its TTL and kept working while another took the lock.
// 3. worker-stalled: a worker inside the key had entered before its owner (partition leader or
//    Key_Shared range) was last seen with it, and was still inside after the key moved to the
//    worker that entered: it stalled through the move (a GC pause, a frozen process). Every
//    violation of the same key that names the same stay (worker and entry time) and would
//    otherwise be a failover overlap is part of that stall too: the first entry after a frozen
//    worker's partition moved usually comes before the poller has seen the move. Seen from the
//    other side too: the worker that entered is the one the key moved away from, and it had sent
//    no event for WAKE_SILENCE_MS when the move was seen: it was frozen through the move and
//    woke up to enter keys from its receive queue that were no longer its own.
// 4. failover-overlap: the key's partition changed leader (or its lock changed hands) within the
//    window, with no sign of a stall: routine handover noise.
// 5. unexplained: none of these. The one to investigate first.

import type { KeyMove, LockChangeMarker, OtherInside } from "@/lib/violations/drilldown-types";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { type CauseCounts, VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import type { LeaderChangeMarker } from "@/lib/violations/violation-types";

/** The evidence a cause is decided from. */
export type CauseFacts = {
  /** The violation is a double run the poller saw in the lock's own records (attributes.twoHands of a POLLER event). */
  isTwoHands: boolean;
  isInsideDeployment: boolean;
  hasLockExpiredWhileHeld: boolean;
  hasWorkerStalledThroughMove: boolean;
  hasOwnershipChange: boolean;
};

export type { KeyMove };

/** The cause: the first in precedence whose evidence holds. */
export function classifyCause(facts: CauseFacts): ViolationCause {
  if (facts.isInsideDeployment) return "rollout";
  if (facts.isTwoHands) return "two-hands";
  if (facts.hasLockExpiredWhileHeld) return "holder-stalled";
  if (facts.hasWorkerStalledThroughMove) return "worker-stalled";
  if (facts.hasOwnershipChange) return "failover-overlap";
  return "unexplained";
}

/** The key's moves around a violation: its partition's leader changes, and its owner's change (Key_Shared range or leader). */
export function movesOf(owner: ViolationOwner | null, leaderChanges: readonly LeaderChangeMarker[]): KeyMove[] {
  const moves: KeyMove[] = leaderChanges.map((c) => ({ from: c.fromHolder, to: c.toHolder, changedAfter: c.oldSeenAt, changedAt: c.newSeenAt }));
  if (owner?.isComputed && owner.change !== null) {
    const { change } = owner;
    moves.push({ from: change.from, to: change.to, changedAfter: change.changedAfter, changedAt: change.changedAt });
  }
  return moves;
}

/**
 * The worker inside the key that stalled through a move of it, or null: the move was away from
 * that worker, happened at or before the violation, and the worker had entered before the old
 * owner was last seen holding the key (so it was inside across the whole move, not a message
 * that merely straddled it).
 */
export function findStallThroughMove(input: {
  observedAt: string;
  othersInside: readonly OtherInside[];
  moves: readonly KeyMove[];
}): { other: OtherInside; move: KeyMove } | null {
  const atMs = Date.parse(input.observedAt);
  for (const other of input.othersInside) {
    const enteredMs = Date.parse(other.enteredAt);
    const move = input.moves.find((m) => m.from === other.worker && Date.parse(m.changedAt) <= atMs && enteredMs <= Date.parse(m.changedAfter ?? m.changedAt));
    if (move) return { other, move };
  }
  return null;
}

/**
 * A worker silent this long when the key moved away from it was frozen through the move, not
 * handing over: a worker that takes a message just before an ordinary failover sent events up
 * to it. Brokers drop a silent consumer after missed keep-alives (Pulsar: two intervals, 30 s
 * each by default), so a frozen worker is silent far longer than this by then.
 */
export const WAKE_SILENCE_MS = 5_000;

/** A worker and an instant: whether it sent no event in the WAKE_SILENCE_MS before it. */
export type SilenceProbe = { worker: string; atMs: number };
/** Answers a SilenceProbe, from the events read (lib/violations/queries/read-worker-silences.ts). */
export type IsSilentBefore = (probe: SilenceProbe) => boolean;

/** The moves of the key away from the worker that entered, seen at or before its entry: where its silence tells a wake-up. */
function movesAwayFrom(worker: string, observedAt: string, moves: readonly KeyMove[]): KeyMove[] {
  const atMs = Date.parse(observedAt);
  return moves.filter((m) => m.from === worker && Date.parse(m.changedAt) <= atMs);
}

/** The instants whose silence the classification of this violation asks about (read once for a page). */
export function silenceProbesOf(worker: string, observedAt: string, moves: readonly KeyMove[]): SilenceProbe[] {
  return movesAwayFrom(worker, observedAt, moves).map((m) => ({ worker, atMs: Date.parse(m.changedAt) }));
}

/**
 * The move the entering worker slept through, or null: the key moved away from it at or before
 * its entry, and it had been silent for WAKE_SILENCE_MS when the move was seen (a frozen worker
 * woken up, entering a key it no longer owns).
 */
export function findWakeAfterMove(input: { worker: string; observedAt: string; moves: readonly KeyMove[]; isSilentBefore: IsSilentBefore }): KeyMove | null {
  return (
    movesAwayFrom(input.worker, input.observedAt, input.moves).find((m) => input.isSilentBefore({ worker: input.worker, atMs: Date.parse(m.changedAt) })) ??
    null
  );
}

/**
 * A lock expiry that can explain a violation: the expired hold was last seen before the violation,
 * so it may have ended before the second worker entered. An expiry of a hold still seen after the
 * violation (the next holder crashing a minute later) came too late to let anyone in.
 */
export function isExpiryBefore(change: Pick<LockChangeMarker, "ending" | "oldSeenAt" | "newSeenAt">, observedAt: string): boolean {
  return change.ending === "EXPIRED" && Date.parse(change.oldSeenAt ?? change.newSeenAt) <= Date.parse(observedAt);
}

/** The evidence of one violation, from what the drill-down (or the causes read) found around it. */
export function causeFactsOf(input: {
  observedAt: string;
  /** The worker that entered. */
  worker: string;
  othersInside: readonly OtherInside[];
  isInsideDeployment: boolean;
  /** The leader changes of the key's subscription partition within the window. */
  leaderChanges: readonly LeaderChangeMarker[];
  /** The holder changes of the lock the event names, within the window. */
  lockChanges: readonly LockChangeMarker[];
  owner: ViolationOwner | null;
  /** Whether a worker was silent before an instant (absent: no wake-up is told). */
  isSilentBefore?: IsSilentBefore;
  /** What saw the double run in the lock's own records ("quartz", "shedlock"), on an event Baton's poller wrote; absent otherwise. */
  twoHands?: string | null;
}): CauseFacts {
  const ownerChanged = input.owner?.isComputed === true && input.owner.change !== null;
  const moves = movesOf(input.owner, input.leaderChanges);
  const isSilentBefore = input.isSilentBefore;
  return {
    isTwoHands: input.twoHands !== undefined && input.twoHands !== null,
    isInsideDeployment: input.isInsideDeployment,
    hasLockExpiredWhileHeld: input.lockChanges.some((c) => isExpiryBefore(c, input.observedAt)),
    hasWorkerStalledThroughMove:
      findStallThroughMove({ observedAt: input.observedAt, othersInside: input.othersInside, moves }) !== null ||
      (isSilentBefore !== undefined && findWakeAfterMove({ worker: input.worker, observedAt: input.observedAt, moves, isSilentBefore }) !== null),
    hasOwnershipChange: input.leaderChanges.length > 0 || input.lockChanges.length > 0 || ownerChanged,
  };
}

/** A violation as classifyCauses takes it: its key, its evidence and who was inside. */
export type CauseSubject = { key: string; facts: CauseFacts; othersInside: readonly OtherInside[] };

const stayKey = (key: string, other: OtherInside) => `${key}\u0000${other.worker}\u0000${Date.parse(other.enteredAt)}`;

/**
 * The causes of a set of violations (a key's, or a page's), in order: each by classifyCause,
 * then a failover overlap that names a stay a worker-stalled violation of the same key names
 * becomes worker-stalled (the same worker, entered at the same instant, stalled through it).
 */
export function classifyCauses(subjects: readonly CauseSubject[]): ViolationCause[] {
  const causes = subjects.map((s) => classifyCause(s.facts));
  const stalledStays = new Set<string>();
  subjects.forEach((s, i) => {
    if (causes[i] === "worker-stalled") for (const other of s.othersInside) stalledStays.add(stayKey(s.key, other));
  });
  return causes.map((cause, i) => {
    const s = subjects[i]!;
    return cause === "failover-overlap" && s.othersInside.some((other) => stalledStays.has(stayKey(s.key, other))) ? "worker-stalled" : cause;
  });
}

export function emptyCauseCounts(): CauseCounts {
  return { "two-hands": 0, rollout: 0, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 0, unexplained: 0 };
}

/** How many of each cause: every cause present, the counts summing to the number given. */
export function countCauses(causes: Iterable<ViolationCause>): CauseCounts {
  const counts = emptyCauseCounts();
  for (const cause of causes) counts[cause] += 1;
  return counts;
}

/** Per name (a key, a worker, a service): how many of each cause. */
export function countCausesBy<T extends { cause: ViolationCause }>(items: readonly T[], nameOf: (item: T) => string): Map<string, CauseCounts> {
  const byName = new Map<string, CauseCounts>();
  for (const item of items) {
    const name = nameOf(item);
    const counts = byName.get(name) ?? emptyCauseCounts();
    counts[item.cause] += 1;
    byName.set(name, counts);
  }
  return byName;
}

/** The cause with the most violations (precedence breaks ties), or null for none. */
export function mainCause(counts: CauseCounts): ViolationCause | null {
  let best: ViolationCause | null = null;
  for (const cause of VIOLATION_CAUSES) if (counts[cause] > 0 && (best === null || counts[cause] > counts[best])) best = cause;
  return best;
}
