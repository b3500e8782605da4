// The locks board from loaded snapshots: each lock judged by the lock rules, worst health
// first, with its cluster's status. Pure and client-safe.

import type { BoardThresholds, ClusterSnapshot } from "@/lib/board/board-types";
import { staleLimitMs, worstHealth } from "@/lib/board/health-rules";
import { isoOrNull } from "@/lib/board/iso-time";
import { evaluateLock, listEndedFindings } from "@/lib/board/lock-health-rules";
import type { LockClusterStatus, LockLastChange, LockResourceKind, LockRow, LocksBoard, LockSnapshot, LockSourceKind } from "@/lib/board/lock-types";
import { compareText } from "@/lib/compare-text";
import { lockDescriptionOf } from "@/lib/sources/kind-descriptions";

/** A lock as loaded: the snapshot the rules judge plus what the board shows as it is. */
export type LoadedLock = {
  snapshot: LockSnapshot;
  sourceKind: LockSourceKind;
  resourceKind: LockResourceKind;
  layout: string | null;
  holderToken: string | null;
  details: Record<string, unknown>;
  firstSeenAt: number;
  lastChange: LockLastChange | null;
  expiriesInHour: number;
};

export type LocksInput = {
  nowMs: number;
  thresholds: BoardThresholds;
  clusters: (ClusterSnapshot & { sourceKind: LockSourceKind })[];
  locks: LoadedLock[];
};

export function buildLocksBoard(input: LocksInput): LocksBoard {
  const { nowMs, thresholds } = input;
  const clusters = new Map(input.clusters.map((c) => [c.name, c]));
  const rows: LockRow[] = [];
  for (const lock of input.locks) {
    const s = lock.snapshot;
    const cluster = clusters.get(s.cluster);
    if (!cluster) continue; // a cluster outside the answer's clusters is out of scope
    const flags = evaluateLock(s, {
      nowMs,
      thresholds,
      staleAfterMs: staleLimitMs(cluster.pollIntervalMs, cluster.lastCycleMs),
      clusterLastPollAt: cluster.lastPollAt,
    });
    const stale = flags.find((f) => f.rule === "stale");
    rows.push({
      id: `${s.cluster}|${s.key}`,
      cluster: s.cluster,
      sourceKind: lock.sourceKind,
      resourceKind: lock.resourceKind,
      key: s.key,
      pattern: s.pattern,
      layout: lock.layout,
      isMustBeHeld: s.isMustBeHeld,
      holder: s.holder,
      holderToken: lock.holderToken,
      holderSince: isoOrNull(s.holderSince),
      expiresAt: isoOrNull(s.expiresAt),
      ttlMs: s.ttlMs,
      waiters: s.waiters,
      isSplit: s.isSplit,
      details: lock.details,
      stats: s.stats,
      firstSeenAt: isoOrNull(lock.firstSeenAt)!,
      lastObservedAt: isoOrNull(s.lastObservedAt),
      staleSince: stale ? (stale.since ?? isoOrNull(s.lastObservedAt)) : null,
      goneAt: isoOrNull(s.goneAt),
      lastChange: lock.lastChange,
      changesInWindow: s.changesInWindow,
      expiriesInHour: lock.expiriesInHour,
      next: lockDescriptionOf(lock.resourceKind).predictNextHolder(s.waiters, lock.details),
      health: worstHealth(flags),
      flags,
      ended: stale ? [] : listEndedFindings(s, { nowMs, thresholds }),
    });
  }
  // By name only, as the board's subscriptions: a lock keeps its place between refreshes.
  rows.sort((a, b) => compareText(a.cluster, b.cluster) || compareText(a.key, b.key));

  const statuses: LockClusterStatus[] = input.clusters.map((c) => {
    let resourceCount = 0;
    let lastObservedAt: number | null = null;
    for (const lock of input.locks) {
      if (lock.snapshot.cluster !== c.name) continue;
      resourceCount++;
      const seen = lock.snapshot.lastObservedAt;
      if (seen !== null && (lastObservedAt === null || seen > lastObservedAt)) lastObservedAt = seen;
    }
    return {
      name: c.name,
      sourceKind: c.sourceKind,
      pollIntervalMs: c.pollIntervalMs,
      lastPollAt: c.lastPollAt,
      lastPollErrorCount: c.lastPollErrorCount,
      lastPollError: c.lastPollError,
      lastObservedAt: isoOrNull(lastObservedAt),
      resourceCount,
      isSilent: c.lastPollAt === null ? resourceCount > 0 : nowMs - Date.parse(c.lastPollAt) > staleLimitMs(c.pollIntervalMs, c.lastCycleMs),
    };
  });
  return { generatedAt: new Date(nowMs).toISOString(), thresholds, clusters: statuses, locks: rows };
}
