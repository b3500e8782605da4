import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import type { LockItem } from "./lock-item";

// One lock item -> the observation the shared hold cycles compare. Pure.
//
// The table stores no absolute times, by design: a holder proves it is alive by writing a new
// recordVersionNumber every heartbeat, and a lock whose version has not changed for its
// leaseDuration is expired. Like the lock client itself, Baton measures that on its own clock,
// from when it first saw the current version: `firstSeenMs` (see version-clock.ts).

/** The detail that moves on every read of an unchanged hold: how long the record's version has not moved. */
export const DYNAMODB_MOVING_DETAILS: readonly string[] = ["versionUnchangedForMs"];

/** Characters of base64 kept of the item's `data`. */
export const DATA_PREVIEW_CHARS = 64;

export type DynamodbLockDetails = {
  recordVersionNumber: string;
  leaseDurationMs: number;
  versionUnchangedForMs: number;
  isReleased: boolean;
  sortKey?: string;
  /** The item's `data`, base64, shortened to DATA_PREVIEW_CHARS with "..." */
  data?: string;
};

export type LockReading = {
  item: LockItem;
  /** The table (the pattern the lock belongs to). */
  pattern: string;
  /** When Baton first saw this item's current recordVersionNumber. */
  firstSeenMs: number;
  /** When the Scan page holding it arrived. */
  observedMs: number;
};

function previewOf(data: Uint8Array): string {
  const text = Buffer.from(data).toString("base64");
  return text.length > DATA_PREVIEW_CHARS ? `${text.slice(0, DATA_PREVIEW_CHARS)}...` : text;
}

export function toDetails(reading: LockReading): DynamodbLockDetails {
  const { item } = reading;
  return {
    recordVersionNumber: item.recordVersionNumber ?? "",
    leaseDurationMs: item.leaseDurationMs ?? 0,
    versionUnchangedForMs: Math.max(0, reading.observedMs - reading.firstSeenMs),
    isReleased: item.isReleased,
    ...(item.sortKey !== null ? { sortKey: item.sortKey } : {}),
    ...(item.data !== null ? { data: previewOf(item.data) } : {}),
  };
}

export function toHoldObservation(reading: LockReading): HoldObservation {
  const { item } = reading;
  const details = toDetails(reading);
  const base = {
    resourceKey: item.resourceKey,
    pattern: reading.pattern,
    observedAt: new Date(reading.observedMs).toISOString(),
    isSplit: false,
    waiters: [],
    details,
  };
  const free = { ...base, holder: null, holderToken: null, expiresAt: null, ttlMs: null };
  if (item.isReleased) return { ...free, previousEnding: "RELEASED" };
  // No owner or no lease: not a lock the client wrote; nobody can be said to hold it.
  if (item.ownerName === null || item.leaseDurationMs === null) return free;
  if (details.versionUnchangedForMs >= item.leaseDurationMs) return { ...free, previousEnding: "EXPIRED" };
  const expiresAtMs = reading.firstSeenMs + item.leaseDurationMs;
  return {
    ...base,
    holder: item.ownerName,
    // The version changes on every heartbeat: the owner is what stays through a tenure.
    holderToken: item.ownerName,
    expiresAt: new Date(expiresAtMs).toISOString(),
    ttlMs: expiresAtMs - reading.observedMs,
  };
}

/** A lock Baton knew of whose item is gone: released with the item deleted (the client's default). */
export function toAbsentObservation(resourceKey: string, pattern: string, observedMs: number): HoldObservation {
  return {
    resourceKey,
    pattern,
    observedAt: new Date(observedMs).toISOString(),
    isSplit: false,
    holder: null,
    holderToken: null,
    expiresAt: null,
    ttlMs: null,
    waiters: [],
    details: {},
  };
}
