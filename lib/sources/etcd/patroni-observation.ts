import type { HoldObservation } from "@/lib/poller/contract/hold-observation";
import { rankPatroniStandbys } from "@/lib/sources/patroni-members";

import type { LeaseTimeToLive } from "./etcd-api";
import type { PatroniEnding } from "./patroni-endings";
import type { PatroniCluster } from "./patroni-layout";

// One read of one Patroni cluster -> the observation the shared hold cycles compare. Pure.
// The primary (the leader key's member) holds; the other members are its standbys, and those
// Patroni may promote are the waiters, in the order it would pick them.

export type PatroniReading = {
  cluster: PatroniCluster;
  pattern: string;
  revision: number;
  observedAt: string;
  /** The leader's lease, read after the range; null when free. */
  lease: LeaseTimeToLive | null;
  /** How the previous primary's hold ended, where the watch saw it (patroni-endings.ts). */
  ending: PatroniEnding | null;
};

export function toPatroniObservation(reading: PatroniReading): HoldObservation {
  const { cluster, lease } = reading;
  const leader = cluster.leader;
  const { primary, standbys, lagBytes, candidates } = rankPatroniStandbys(cluster.members, leader?.value ?? null, cluster.failover?.member ?? null);
  const waiters = candidates.map((member) => member.name);
  const shared = {
    layout: "patroni",
    // What the lock is to its system, as the ZooKeeper kind's systems say it (the board leads with it).
    system: "patroni",
    role: `Patroni cluster ${cluster.scope}`,
    scope: cluster.scope,
    revision: reading.revision,
    standbys: standbys.map(({ name, role, state, timeline, isNoFailover, isUnreadable }) => ({ name, role, state, timeline, isNoFailover, isUnreadable })),
    lagBytes: Object.fromEntries(lagBytes),
    failover: cluster.failover && { leader: cluster.failover.leader, member: cluster.failover.member, scheduledAt: cluster.failover.scheduledAt },
    // How the last primary's hold ended, as the watch saw it: on a free cluster the one that just
    // ended, on a held one the one this primary followed.
    previousPrimary: reading.ending && { name: reading.ending.leader, kind: reading.ending.kind, ending: reading.ending.ending, reason: reading.ending.reason },
    history: cluster.history,
  };
  const base = { resourceKey: cluster.resourceKey, pattern: reading.pattern, observedAt: reading.observedAt, isSplit: false, isExpiryCoarse: true, waiters };
  if (!leader) return { ...base, holder: null, holderToken: null, expiresAt: null, ttlMs: null, details: shared };
  const ttlMs = lease === null ? null : Math.max(0, lease.ttlSeconds) * 1000;
  return {
    ...base,
    holder: leader.value,
    // A new leader key (a new election, even one the same member wins again) is a new hold.
    holderToken: `${leader.leaseHex}@${leader.createRevision}`,
    expiresAt: lease === null ? null : new Date(Date.parse(lease.answeredAt) + ttlMs!).toISOString(),
    ttlMs,
    details: {
      ...shared,
      key: leader.key,
      leaseId: leader.leaseHex,
      createRevision: leader.createRevision,
      modRevision: leader.modRevision,
      leaseGrantedTtlS: lease?.grantedTtlSeconds ?? null,
      leaseTtlS: lease?.ttlSeconds ?? null,
      primary: primary ? { role: primary.role, state: primary.state, timeline: primary.timeline, apiUrl: primary.apiUrl } : null,
      timeline: primary?.timeline ?? null,
      xlogLocation: primary?.xlogLocation ?? null,
    },
  };
}
