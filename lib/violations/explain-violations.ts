// The drill-down's analysis: which workers touched the key and how their entries overlapped,
// and for each violation the deployments and leader changes around it, with its cause.
// Client-safe and pure.

import { effectiveEndMs, isInsideWindows } from "@/lib/deployments/deployment-windows";
import { refMatches } from "@/lib/violations/resource-ref";
import type { DrilldownEvent, LockChangeMarker, ViolationExplanation, WorkerActivity, WorkerOverlap } from "@/lib/violations/drilldown-types";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { floorMinute } from "@/lib/violations/time-buckets";
import {
  causeFactsOf,
  classifyCauses,
  findWakeAfterMove,
  type IsSilentBefore,
  movesOf,
  type SilenceProbe,
  silenceProbesOf,
} from "@/lib/violations/violation-cause";
import type { DeploymentBand, LeaderChangeMarker } from "@/lib/violations/violation-types";

/** Per worker: its events and violations on the key, first and last entry. */
export function summariseWorkers(events: readonly DrilldownEvent[]): WorkerActivity[] {
  const byWorker = new Map<string, WorkerActivity & { serviceSet: Set<string> }>();
  for (const e of events) {
    let entry = byWorker.get(e.worker);
    if (!entry) {
      entry = { worker: e.worker, services: [], serviceSet: new Set(), events: 0, violations: 0, firstAt: e.observedAt, lastAt: e.observedAt };
      byWorker.set(e.worker, entry);
    }
    entry.serviceSet.add(e.service);
    entry.events += 1;
    if (e.isViolation) entry.violations += 1;
    if (e.observedAt < entry.firstAt) entry.firstAt = e.observedAt;
    if (e.observedAt > entry.lastAt) entry.lastAt = e.observedAt;
  }
  return [...byWorker.values()]
    .map(({ serviceSet, ...rest }) => ({ ...rest, services: [...serviceSet].sort() }))
    .sort((a, b) => b.violations - a.violations || a.firstAt.localeCompare(b.firstAt) || a.worker.localeCompare(b.worker));
}

/**
 * For each event, the latest earlier entry by another worker: a counter above zero says someone
 * was inside, and the last other worker to enter is who it most probably was. Events must be
 * sorted by time. Equal instants count as earlier (the order of a tie is unknowable).
 */
export function findPreviousEntries(events: readonly DrilldownEvent[]): Map<string, DrilldownEvent> {
  const previous = new Map<string, DrilldownEvent>();
  // The latest entry of each worker so far, and the two latest workers (enough to find "another").
  let latest: DrilldownEvent | null = null;
  let latestOther: DrilldownEvent | null = null;
  for (const event of events) {
    const candidate = latest && latest.worker !== event.worker ? latest : latestOther;
    if (candidate && candidate.worker !== event.worker) previous.set(event.eventId, candidate);
    if (!latest || latest.worker !== event.worker) latestOther = latest;
    latest = event;
  }
  return previous;
}

/**
 * Pairs (who entered, who was inside) over the key's violations, most frequent first: from the
 * event's own list of the workers inside when it has one, else the latest other entry.
 */
export function countOverlaps(events: readonly DrilldownEvent[], previous: ReadonlyMap<string, DrilldownEvent>): WorkerOverlap[] {
  const counts = new Map<string, WorkerOverlap>();
  for (const event of events) {
    if (!event.isViolation) continue;
    const recorded = event.othersInside ?? [];
    const guessed = previous.get(event.eventId);
    const insideWorkers = recorded.length > 0 ? new Set(recorded.map((o) => o.worker)) : guessed ? new Set([guessed.worker]) : new Set<string>();
    for (const inside of insideWorkers) {
      const key = `${event.worker}\u0000${inside}`;
      const entry = counts.get(key) ?? { entered: event.worker, inside, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.entered.localeCompare(b.entered) || a.inside.localeCompare(b.inside));
}

/** Whether a change's interval (oldSeenAt, newSeenAt] comes within windowMs of an instant. */
export function isChangeNear(change: Pick<LeaderChangeMarker, "oldSeenAt" | "newSeenAt">, atMs: number, windowMs: number): boolean {
  const newMs = Date.parse(change.newSeenAt);
  const oldMs = change.oldSeenAt === null ? newMs : Date.parse(change.oldSeenAt);
  return newMs >= atMs - windowMs && oldMs <= atMs + windowMs;
}

/**
 * The changes of the subscription partitions the events name that come within the window of
 * one of those events: what the drill-down lists. (The query finds the changes of the events'
 * subscriptions; the partition and the per-event window are applied here.)
 */
export function changesNearEvents(changes: readonly LeaderChangeMarker[], events: readonly DrilldownEvent[], windowMs: number): LeaderChangeMarker[] {
  // Parsed once: a busy key has a thousand events and each change is tested against them.
  const located = events.flatMap((e) => (e.resource === null ? [] : [{ resource: e.resource, atMs: Date.parse(e.observedAt) }]));
  return changes.filter((change) => {
    const newMs = Date.parse(change.newSeenAt);
    const oldMs = change.oldSeenAt === null ? newMs : Date.parse(change.oldSeenAt);
    return located.some((e) => newMs >= e.atMs - windowMs && oldMs <= e.atMs + windowMs && refMatches(e.resource, change));
  });
}

/**
 * Each violation with what coincides with it: the classification's deployments, others nearby,
 * leader changes, holder changes of the lock it ran under, its key's owner, and its cause
 * (lib/violations/violation-cause.ts: the one precedence).
 */
/**
 * The silences explainViolations asks about: for each violation, the moves of its key away from
 * the worker that entered (its partition's leader changes near it, its owner's change).
 */
export function listSilenceProbes(input: {
  events: readonly DrilldownEvent[];
  changes: readonly LeaderChangeMarker[];
  windowMs: number;
  owners?: ReadonlyMap<string, ViolationOwner>;
}): SilenceProbe[] {
  return input.events
    .filter((e) => e.isViolation)
    .flatMap((event) => {
      const atMs = Date.parse(event.observedAt);
      const changes = event.resource === null ? [] : input.changes.filter((c) => refMatches(event.resource!, c) && isChangeNear(c, atMs, input.windowMs));
      return silenceProbesOf(event.worker, event.observedAt, movesOf(input.owners?.get(event.eventId) ?? null, changes));
    });
}

export function explainViolations(input: {
  events: readonly DrilldownEvent[];
  changes: readonly LeaderChangeMarker[];
  lockChanges: readonly LockChangeMarker[];
  /** With their classification windows as the queries computed them (windowEnd). */
  deployments: readonly Pick<DeploymentBand, "id" | "service" | "startedAt" | "finishedAt" | "windowEnd">[];
  windowMs: number;
  nowMs: number;
  /** Per violation's event id: who owned its key then (absent: not computed). */
  owners?: ReadonlyMap<string, ViolationOwner>;
  /** Whether a worker was silent before an instant (read for listSilenceProbes' probes); absent: no wake-up is told. */
  isSilentBefore?: IsSilentBefore;
}): ViolationExplanation[] {
  const { windowMs, nowMs } = input;
  const previous = findPreviousEntries(input.events);
  const deployments = input.deployments.map((d) => {
    const times = { startedAtMs: Date.parse(d.startedAt), finishedAtMs: d.finishedAt === null ? null : Date.parse(d.finishedAt) };
    return {
      ...d,
      window: { start: floorMinute(times.startedAtMs), end: Date.parse(d.windowEnd) },
      activeEnd: effectiveEndMs(times, nowMs),
      startMs: times.startedAtMs,
    };
  });
  const explained = input.events
    .filter((e) => e.isViolation)
    .map((event) => {
      const atMs = Date.parse(event.observedAt);
      const inside = deployments.filter((d) => d.service === event.service && isInsideWindows(atMs, [d.window]));
      const insideIds = new Set(inside.map((d) => d.id));
      const nearby = deployments.filter((d) => !insideIds.has(d.id) && d.startMs <= atMs + windowMs && d.activeEnd >= atMs - windowMs);
      const changes = event.resource === null ? [] : input.changes.filter((c) => refMatches(event.resource!, c) && isChangeNear(c, atMs, windowMs));
      const lockChanges = event.lock === null ? [] : input.lockChanges.filter((c) => c.lock === event.lock && isChangeNear(c, atMs, windowMs));
      const before = previous.get(event.eventId);
      const othersInside = event.othersInside ?? [];
      const owner = input.owners?.get(event.eventId) ?? null;
      const isSilentBefore = input.isSilentBefore;
      const wakeAfterMove =
        isSilentBefore === undefined
          ? null
          : findWakeAfterMove({ worker: event.worker, observedAt: event.observedAt, moves: movesOf(owner, changes), isSilentBefore });
      const facts = causeFactsOf({
        twoHands: event.twoHands,
        observedAt: event.observedAt,
        worker: event.worker,
        isSilentBefore,
        othersInside,
        isInsideDeployment: inside.length > 0,
        leaderChanges: changes,
        lockChanges,
        owner,
      });
      const explanation: Omit<ViolationExplanation, "cause"> = {
        eventId: event.eventId,
        previousEntry: before
          ? { eventId: before.eventId, worker: before.worker, observedAt: before.observedAt, gapMs: atMs - Date.parse(before.observedAt) }
          : null,
        othersInside: othersInside.map((other) => ({ ...other, insideForMs: atMs - Date.parse(other.enteredAt) })),
        insideDeploymentIds: inside.map((d) => d.id),
        nearbyDeploymentIds: nearby.map((d) => d.id),
        leaderChangeIds: changes.map((c) => c.id),
        lockChangeIds: lockChanges.map((c) => c.id),
        owner,
        wakeAfterMove,
      };
      return { explanation, subject: { key: event.key, facts, othersInside } };
    });
  const causes = classifyCauses(explained.map((e) => e.subject));
  return explained.map((e, i) => ({ ...e.explanation, cause: causes[i]! }));
}
