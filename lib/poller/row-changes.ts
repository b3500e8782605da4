// Which saved states need their held_resource row written: only those where something about
// the resource changed. The last observation time is not such a thing (it lives per cluster and
// kind in observation_sweep), and the figures that move on every cycle of a busy resource
// (backlog, rates, samples, a lock's remaining TTL and a few source details) are flushed on a slower,
// per-resource cadence. Pure.

import type { HoldState, HoldStats } from "@/lib/poller/hold-state";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import type { BacklogSample, ConsumerObservation, ResourceState } from "@/lib/poller/contract/partition-state";

/**
 * How often, at least, a resource whose only news is its moving figures has its row written.
 * The board's backlog, rates and samples of a busy, unchanged resource are at most
 * flushIntervalMs(cycle) old (plus one cycle).
 */
export const MOVING_FIGURES_FLUSH_MS = 60_000;

/** ... and never more often than once in this many full cycles, however long a cycle takes. */
export const MOVING_FIGURES_FLUSH_CYCLES = 3;

/** The flush interval for a cluster whose full cycles take cycleMs (null: not known yet). */
export function flushIntervalMs(cycleMs: number | null): number {
  return Math.max(MOVING_FIGURES_FLUSH_MS, MOVING_FIGURES_FLUSH_CYCLES * (cycleMs ?? 0));
}

/** A lock's expiry that moved less than this is the same expiry read again (observation time plus a TTL read a moment later). */
export const EXPIRY_JITTER_MS = 1_000;

/** "changed": write the row now; "moving": only its moving figures differ; "same": nothing to write. */
export type RowDifference = "changed" | "moving" | "same";

function stringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash >>> 0;
}

/**
 * Whether a row written at writtenAtMs with only moving figures since is due at nowMs. Each
 * resource has its own phase within the flush interval, so a cluster's busy resources are
 * flushed spread over the interval rather than all in one cycle.
 */
export function isMovingFiguresFlushDue(resourceKey: string, writtenAtMs: number, nowMs: number, flushMs = MOVING_FIGURES_FLUSH_MS): boolean {
  const phase = stringHash(resourceKey) % flushMs;
  return Math.floor((nowMs + phase) / flushMs) !== Math.floor((writtenAtMs + phase) / flushMs);
}

// A row is remembered by a signature, not by the state itself: a poller keeps every state of
// its cluster already, and a second copy of each (the state as last written) would double that
// (measured: 70 MB more for 10,000 Key_Shared-heavy states). Two digests: of the fields whose
// change must be written now, and of the moving figures. Objects are written in a fixed order, so
// a state read back from jsonb (keys reordered) signs the same as the one written.

/** What a row was written with, as far as deciding the next write needs. */
export type RowSignature = {
  /** Fields whose change is written at once. */
  changed: string;
  /** Figures that move on a busy resource; their change is flushed on the slower cadence. */
  moving: string;
  /** A lock's expiry, compared with a tolerance (a re-read moves it by milliseconds). */
  expiresAtMs: number | null;
};

const SEP = "\u0001";

/**
 * A text in about 16 characters: its length and two 32-bit hash lanes (cyrb53's mixing), 64 bits
 * in all. What a row is remembered by: the texts themselves were some 300 bytes a row (consumer
 * names, connection times, addresses), 3 MB of the worker's heap at 10,000 resources.
 */
export function digestText(text: string): string {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // Joined, not a template: join makes one flat string; a template of parts keeps them as a tree
  // of strings (about 50 bytes more, for each of the 20,000 digests a poller keeps at 10,000 rows).
  return [text.length.toString(36), (h1 >>> 0).toString(36), (h2 >>> 0).toString(36)].join(":");
}

/** JSON with every object's keys sorted: the same text for a value and its jsonb round trip. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * A Key_Shared split whatever order the broker listed its consumers in, in about 30 characters:
 * two 32-bit hash lanes (cyrb53's mixing) over the consumers in name order and their ranges, with
 * the counts. Not the split's kilobytes of ranges (memory), and not an md5 of them (it cost
 * 15 us a state, every cycle).
 */
function signSplit(split: HashRangeSplit | null): string {
  if (split === null) return "-";
  const consumers =
    split.consumers.length > 1 ? [...split.consumers].sort((a, b) => (a.consumer < b.consumer ? -1 : a.consumer > b.consumer ? 1 : 0)) : split.consumers;
  let h1 = 0xdeadbeef ^ split.space;
  let h2 = 0x41c6ce57 ^ split.space;
  let rangeCount = 0;
  const mix = (n: number) => {
    h1 = Math.imul(h1 ^ n, 2654435761);
    h2 = Math.imul(h2 ^ n, 1597334677);
  };
  for (const consumer of consumers) {
    for (let i = 0; i < consumer.consumer.length; i++) mix(consumer.consumer.charCodeAt(i));
    mix(-1);
    for (const [start, end] of consumer.ranges) {
      mix(start);
      mix(end);
      rangeCount++;
    }
    mix(-2);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${split.space}:${consumers.length}:${rangeCount}:${(h1 >>> 0).toString(36)}:${(h2 >>> 0).toString(36)}`;
}

/** The gap fields every kind shares; lastErrorAt moves on every failed cycle and is derived like the last observation. */
function signGaps(s: Pick<ResourceState, "staleSince" | "lastError" | "goneAt" | "lastChangeAt" | "holderSince" | "holder">): string {
  return [s.holder, s.holderSince, s.staleSince, s.lastError, s.goneAt, s.lastChangeAt].join(SEP);
}

/** What identifies a consumer's connection: its rates, permits and last delivery are moving figures. */
function signConsumers(consumers: readonly ConsumerObservation[]): string {
  return consumers.map((c) => `${c.name}${SEP}${c.connectedSince}${SEP}${c.address}${SEP}${c.clientVersion}`).join("\u0002");
}

function signConsumerFigures(consumers: readonly ConsumerObservation[]): string {
  return consumers.map((c) => `${c.msgRateOut},${c.availablePermits},${c.unackedMessages},${c.lastConsumedAt}`).join(";");
}

/**
 * Samples are only ever appended (and the oldest dropped), or the latest of a still run moved
 * forward, so the newest one's figures tell them apart. Not its time: a still resource's latest
 * sample moves a minute at a time with the same figures (so the board's trend reaches the
 * present), and signing that time made every quiet row "moving" and rewrote it once a flush
 * interval (a third of 10,000 quiet rows every 20 s cycle). Such a sample is written with the
 * resource's next real change or flush.
 */
function signSamples(samples: readonly BacklogSample[]): string {
  const last = samples[samples.length - 1];
  return last === undefined ? "0" : `${last.backlog}${SEP}${last.msgRateOut}${SEP}${last.holder}`;
}

export function signSubscriptionPartitionRow(state: ResourceState): RowSignature {
  return {
    changed: digestText([signGaps(state), state.subscriptionType, state.isDurable, signConsumers(state.consumers), signSplit(state.hashRanges)].join(SEP)),
    moving: digestText([state.backlog, state.msgRateOut, signSamples(state.recentSamples), signConsumerFigures(state.consumers)].join(SEP)),
    expiresAtMs: null,
  };
}

function splitDetails(details: Record<string, unknown>, movingDetails: readonly string[]): { kept: Record<string, unknown>; moving: Record<string, unknown> } {
  const kept: Record<string, unknown> = {};
  const moving: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) (movingDetails.includes(key) ? moving : kept)[key] = value;
  return { kept, moving };
}

/** `movingDetails`: the keys of the kind's details that move on every read of an unchanged hold (StoredShape). */
export function signHoldRow(state: HoldState, movingDetails: readonly string[] = []): RowSignature {
  const { kept, moving } = splitDetails(state.details, movingDetails);
  const stats: HoldStats = state.stats;
  return {
    changed: digestText(
      [
        signGaps(state),
        state.holderToken,
        state.pattern,
        state.isSplit,
        state.waiters.join("\u0002"),
        `${stats.tenureMaxTtlMs},${stats.nearExpiryCount},${stats.longestHoldMs}`,
        canonicalJson(kept),
      ].join(SEP),
    ),
    moving: digestText([state.expiresAt, state.ttlMs, canonicalJson(moving)].join(SEP)),
    expiresAtMs: state.expiresAt === null ? null : Date.parse(state.expiresAt),
  };
}

function isSameExpiry(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) < EXPIRY_JITTER_MS;
}

export function compareRowSignatures(written: RowSignature, next: RowSignature): RowDifference {
  if (written.changed !== next.changed || !isSameExpiry(written.expiresAtMs, next.expiresAtMs)) return "changed";
  return written.moving === next.moving ? "same" : "moving";
}

export function compareSubscriptionPartitionRows(written: ResourceState, next: ResourceState): RowDifference {
  return compareRowSignatures(signSubscriptionPartitionRow(written), signSubscriptionPartitionRow(next));
}

export function compareHoldRows(written: HoldState, next: HoldState, movingDetails: readonly string[] = []): RowDifference {
  return compareRowSignatures(signHoldRow(written, movingDetails), signHoldRow(next, movingDetails));
}
