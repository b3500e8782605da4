// The key (and single-event) drill-down's answer. Client-safe types.

import type { ViolationOwner } from "@/lib/violations/owner-types";
import type { ResourceRef } from "@/lib/violations/resource-ref";
import type { CauseCounts, ViolationCause } from "@/lib/violations/cause-words";
import type { DeploymentBand, LeaderChangeMarker, ViolationCounts } from "@/lib/violations/violation-types";

/** A key's counts: its entries (events) and their violations. */
export type KeyCounts = ViolationCounts & { events: number };

export type DrilldownEvent = {
  eventId: string;
  key: string;
  counter: number;
  isViolation: boolean;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  traceId: string | null;
  /** The trace through the configured URL template; null without a template or a trace id. */
  traceUrl: string | null;
  observedAt: string;
  receivedAt: string;
  /** The subscription partition the event names, normalised; null without topic or subscription. */
  resource: ResourceRef | null;
  /** On a violation from a client that records who is inside: the workers inside when this one entered. */
  othersInside: OtherInside[] | null;
  /** The lock the work ran under, "<cluster>/<lock key>", when the client named it. */
  lock: string | null;
  /** On a double run Baton's poller saw in the lock's own records: what saw it ("quartz"). Absent on clients' events. */
  twoHands?: string;
};

/** A holder change of a lock an event names (the lock's own history, for the drill-down). */
export type LockChangeMarker = {
  id: string;
  /** "<cluster>/<lock key>", as events name it. */
  lock: string;
  kind: string;
  /** How the previous hold ended: RELEASED, EXPIRED (while held), TAKEN_OVER; null for an acquisition. */
  ending: string | null;
  fromHolder: string | null;
  toHolder: string | null;
  /** The change happened in (oldSeenAt, newSeenAt]. */
  oldSeenAt: string | null;
  newSeenAt: string;
  /** When the previous hold's TTL ran out, as last observed. */
  expiresAtBefore: string | null;
  /** When the new holder took it, as far as its TTL tells (else newSeenAt). */
  acquiredAt: string | null;
};

/** Another worker inside the key when an event's worker entered, as the event's own row says. */
export type OtherInside = { worker: string; enteredAt: string };

export type WorkerActivity = {
  worker: string;
  services: string[];
  events: number;
  violations: number;
  firstAt: string;
  lastAt: string;
};

/** "`entered` came in while `inside` was (probably) in": how often, over the drill-down. */
export type WorkerOverlap = { entered: string; inside: string; count: number };

export type ViolationExplanation = {
  eventId: string;
  /** The latest entry into the key by another worker before this one: who was probably inside. */
  previousEntry: { eventId: string; worker: string; observedAt: string; gapMs: number } | null;
  /** The workers inside when this one entered, from the event's own row, with how long each had been inside. */
  othersInside: (OtherInside & { insideForMs: number })[];
  /** Deployments of the event's service whose window (with grace) covers it: the classification. */
  insideDeploymentIds: string[];
  /** Other deployments within the drill-down window (any service). */
  nearbyDeploymentIds: string[];
  /** Leader changes of the event's subscription partition within the window. */
  leaderChangeIds: string[];
  /** Holder changes of the lock the event names, within the window. */
  lockChangeIds: string[];
  /** Why it happened, by the one precedence (lib/violations/violation-cause.ts). */
  cause: ViolationCause;
  /** Who owned the key at the violation's time (Key_Shared range or partition leader) and whether that changed around it; null when not computed. */
  owner: ViolationOwner | null;
  /**
   * The move of the key away from the worker that entered, which that worker slept through (it
   * had sent nothing for WAKE_SILENCE_MS when the move was seen): a frozen worker woken up. Null
   * otherwise.
   */
  wakeAfterMove: KeyMove | null;
};

/** A move of a key away from a worker: in (changedAfter, changedAt], changedAfter being the last sighting of the old owner. */
export type KeyMove = { from: string | null; to: string | null; changedAfter: string | null; changedAt: string };

export type KeyDrilldown = {
  key: string;
  from: string;
  to: string;
  /** The event the drill-down was opened for, if any. */
  focusEventId: string | null;
  windowMs: number;
  graceMs: number;
  /** Raw events older than this are deleted by retention (the charts keep their counts). */
  rawSince: string;
  /** The key's events in the range, oldest first, at most `eventLimit`. */
  events: DrilldownEvent[];
  eventLimit: number;
  isTruncated: boolean;
  counts: KeyCounts;
  workers: WorkerActivity[];
  overlaps: WorkerOverlap[];
  leaderChanges: LeaderChangeMarker[];
  /** Holder changes of the locks the events name, within the window of some event. */
  lockChanges: LockChangeMarker[];
  deployments: DeploymentBand[];
  explanations: ViolationExplanation[];
  /** The explained violations per cause (they add up to explanations.length). */
  causes: CauseCounts;
};
