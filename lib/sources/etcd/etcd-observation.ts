import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

import type { LeaseTimeToLive } from "./etcd-api";
import { type Contender, nameOf } from "./etcd-layout";

// One read of one election or lock -> the observation the shared hold cycles compare. Pure.

/**
 * The details that move on every read of an unchanged hold: the store revision the range was read
 * at (any write anywhere moves it) and the seconds the holder's lease has left; for Patroni, the
 * primary's WAL position and its standbys' lag behind it.
 */
export const ETCD_MOVING_DETAILS: readonly string[] = ["revision", "leaseTtlS", "xlogLocation", "lagBytes"];

export type EtcdReading = {
  resourceKey: string;
  /** The watched prefix that holds it. */
  pattern: string;
  /** Its contenders in create-revision order (empty: free). */
  contenders: Contender[];
  /** The cluster revision the range was read at. */
  revision: number;
  /** When the range's answer arrived. */
  observedAt: string;
  /** The holder's lease, read after the range; null when free or when that read failed. */
  lease: LeaseTimeToLive | null;
};

export function toHoldObservation(reading: EtcdReading): HoldObservation {
  const [holder, ...waiting] = reading.contenders;
  // Lease TTLs are whole seconds.
  const base = { resourceKey: reading.resourceKey, pattern: reading.pattern, observedAt: reading.observedAt, isSplit: false, isExpiryCoarse: true };
  if (!holder) {
    return { ...base, holder: null, holderToken: null, expiresAt: null, ttlMs: null, waiters: [], details: { revision: reading.revision } };
  }
  // Whole seconds left, truncated by etcd: the real end is up to a second later, so a key deleted
  // at its lease's end is never deleted before this expiresAt.
  const lease = reading.lease;
  const ttlMs = lease === null ? null : Math.max(0, lease.ttlSeconds) * 1000;
  const expiresAt = lease === null ? null : new Date(Date.parse(lease.answeredAt) + ttlMs!).toISOString();
  return {
    ...base,
    holder: nameOf(holder),
    // A new key (a new campaign, even by the same pod under the same lease) is a new hold.
    holderToken: `${holder.leaseHex}@${holder.createRevision}`,
    expiresAt,
    ttlMs,
    waiters: waiting.map(nameOf),
    details: {
      layout: holder.layout,
      key: holder.key,
      leaseId: holder.leaseHex,
      createRevision: holder.createRevision,
      modRevision: holder.modRevision,
      leaseGrantedTtlS: lease?.grantedTtlSeconds ?? null,
      leaseTtlS: lease?.ttlSeconds ?? null,
      revision: reading.revision,
      waiters: waiting.map((c) => ({ name: nameOf(c), key: c.key, leaseId: c.leaseHex, createRevision: c.createRevision })),
    },
  };
}
