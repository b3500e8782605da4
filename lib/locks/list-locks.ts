import "server-only";

import type { BoardThresholds } from "@/lib/board/board-types";
import { buildLocksBoard, type LoadedLock } from "@/lib/board/build-locks";
import { EXPIRY_WINDOW_MS } from "@/lib/board/lock-health-rules";
import { findPatternScope, readLockPatterns } from "@/lib/board/lock-scope";
import type { LockResourceKind, LocksBoard, LockSourceKind } from "@/lib/board/lock-types";
import { join, sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import type { HoldDetails } from "@/lib/poller/hold-rows";
import { NO_HOLD_STATS } from "@/lib/poller/hold-state";
import type { ChangeKind, HoldEnding } from "@/lib/poller/change";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";
import type { LockKindDescription } from "@/lib/sources/kind-description";
import { lockDescriptionOf } from "@/lib/sources/kind-descriptions";

export type LocksQuery = {
  cluster: string | null;
  /** A source kind ("redis"): only the clusters of that kind. */
  kind: LockSourceKind | null;
  /** Exactly this configured pattern. */
  pattern: string | null;
  /** Exactly this key (the lock page). */
  key: string | null;
  /** A substring of the key or the holder (case-insensitive). */
  q: string;
  includeGone: boolean;
};

export const ALL_LOCKS: LocksQuery = { cluster: null, kind: null, pattern: null, key: null, q: "", includeGone: false };

/** The holder-change kinds that count towards churn: the same as the leaders' flapping. */
const FLAP_KINDS = sql`('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP')`;

type ClusterRow = {
  name: string;
  kind: string;
  scope: unknown;
  poll_interval_ms: number;
  last_poll_at: Date | null;
  cycle_ms: number | null;
  error_count: number | null;
  error: string | null;
};

type LockDbRow = {
  cluster: string;
  kind: LockResourceKind;
  resource_key: string;
  holder: string | null;
  holder_token: string | null;
  holder_since: Date | null;
  expires_at: Date | null;
  consumers: { name: string }[];
  details: Partial<HoldDetails>;
  first_seen_at: Date;
  last_observed_at: Date | null;
  stale_since: Date | null;
  last_error: string | null;
  gone_at: Date | null;
  last_change_at: Date | null;
  lc_kind: ChangeKind | null;
  lc_ending: HoldEnding | null;
  lc_from: string | null;
  lc_to: string | null;
  lc_at: Date | null;
  flaps: number;
  expiries: number;
  ex_from: string | null;
  ex_to: string | null;
  ex_at: Date | null;
  ex_details: { heldSince?: string | null; expiresAtBefore?: string | null } | null;
};

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/**
 * Every lock of the given clusters (those whose kind holds locks: read from the cluster rows,
 * so a kind works as soon as it writes rows), judged by the lock rules. Two statements at once:
 * the clusters with their latest poll, and the locks, each with its latest holder change, its
 * churn and expiry counts and its newest expiry while held, all over holder_change's
 * (resource, time) index.
 */
/**
 * The TTL left at the lock's last observation. A row is written only when the lock changed (its
 * remaining TTL shrinks on every read and is not such a change), so the TTL written with it is
 * that of the last write: it is worked out again from the expiry and the last observation, as
 * each kind computed it (expiry = observation + TTL left), never below zero where the kind clamps.
 */
function ttlAtLastObservation(expiresAtMs: number | null, lastObservedMs: number | null, writtenTtlMs: number | null): number | null {
  if (expiresAtMs === null || lastObservedMs === null || writtenTtlMs === null) return writtenTtlMs;
  const ttlMs = expiresAtMs - lastObservedMs;
  return writtenTtlMs >= 0 ? Math.max(0, ttlMs) : ttlMs;
}

export async function listLocks(
  db: SqlDb,
  options: { clusterNames: string[]; thresholds: BoardThresholds; query: LocksQuery; nowMs?: number },
): Promise<LocksBoard> {
  const { thresholds, query } = options;
  const nowMs = options.nowMs ?? Date.now();
  const names = query.cluster === null ? options.clusterNames : options.clusterNames.filter((name) => name === query.cluster);
  const windowStart = new Date(nowMs - thresholds.flapWindowMs);
  const hourAgo = new Date(nowMs - EXPIRY_WINDOW_MS);
  const since = new Date(Math.min(windowStart.getTime(), hourAgo.getTime()));
  const kindCondition = query.kind === null ? sql`c.kind <> 'PULSAR'` : sql`c.kind = ${query.kind.toUpperCase()}::cluster_kind`;

  const conditions = [sql`r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION'`, sql`c.name = any(${names}::text[])`, kindCondition];
  if (!query.includeGone) conditions.push(sql`r.gone_at is null`);
  if (query.key !== null) conditions.push(sql`r.resource_key = ${query.key}`);
  if (query.pattern !== null) conditions.push(sql`r.details->>'pattern' = ${query.pattern}`);
  const q = query.q.trim().toLowerCase();
  if (q) conditions.push(sql`(strpos(lower(r.resource_key), ${q}) > 0 or strpos(lower(coalesce(r.holder, '')), ${q}) > 0)`);

  const [clusters, locks] = await Promise.all([
    db.$queryRaw<ClusterRow[]>(sql`
      select c.name, c.kind::text as kind, c.scope, c.poll_interval_ms, p.finished_at as last_poll_at, p.cycle_ms, p.error_count, p.errors->0->>'message' as error
      from cluster c
      left join lateral (select finished_at, cycle_ms, error_count, errors from poll_run where cluster_id = c.id order by started_at desc limit 1) p on true
      where c.name = any(${names}::text[]) and ${kindCondition}
      order by c.name`),
    db.$queryRaw<LockDbRow[]>(sql`
      select c.name as cluster, r.kind, r.resource_key, r.holder, r.holder_token, r.holder_since, r.expires_at, r.consumers, r.details,
        r.first_seen_at, ${LAST_OBSERVED_AT} as last_observed_at, r.stale_since, r.last_error, r.gone_at, r.last_change_at,
        l.kind as lc_kind, l.ending as lc_ending, l.from_holder as lc_from, l.to_holder as lc_to, l.new_seen_at as lc_at,
        coalesce(w.flaps, 0)::int as flaps, coalesce(w.expiries, 0)::int as expiries,
        x.from_holder as ex_from, x.to_holder as ex_to, x.new_seen_at as ex_at, x.details as ex_details
      from held_resource r
      join cluster c on c.id = r.cluster_id
      ${OBSERVATION_SWEEP_JOIN}
      left join lateral (
        select kind, ending, from_holder, to_holder, new_seen_at from holder_change
        where resource_id = r.id and kind in ${FLAP_KINDS} order by new_seen_at desc limit 1
      ) l on true
      left join lateral (
        select count(*) filter (where kind in ${FLAP_KINDS} and new_seen_at > ${windowStart}) as flaps,
          count(*) filter (where ending = 'EXPIRED' and new_seen_at > ${hourAgo}) as expiries
        from holder_change where resource_id = r.id and new_seen_at > ${since}
      ) w on true
      left join lateral (
        select from_holder, to_holder, new_seen_at, details from holder_change
        where resource_id = r.id and ending = 'EXPIRED' and new_seen_at > ${hourAgo} order by new_seen_at desc limit 1
      ) x on true
      where ${join(conditions, " and ")}`),
  ]);

  const scopes = new Map(clusters.map((c) => [c.name, readLockPatterns(c.scope)]));
  const sourceKinds = new Map(clusters.map((c) => [c.name, c.kind.toLowerCase() as LockSourceKind]));
  const loaded: LoadedLock[] = locks.map((r) => {
    const pattern = r.details.pattern ?? "";
    const sourceKind = sourceKinds.get(r.cluster)!;
    const details = r.details.source ?? {};
    const description: LockKindDescription = lockDescriptionOf(sourceKind);
    const scope = findPatternScope(scopes.get(r.cluster) ?? [], pattern, r.resource_key);
    return {
      snapshot: {
        cluster: r.cluster,
        key: r.resource_key,
        pattern,
        isMustBeHeld: scope?.mustBeHeld ?? false,
        holder: r.holder,
        holderSince: ms(r.holder_since),
        expiresAt: ms(r.expires_at),
        ttlMs: ttlAtLastObservation(ms(r.expires_at), ms(r.last_observed_at), r.details.ttlMs ?? null),
        waiters: r.consumers.map((w) => w.name),
        isSplit: r.details.isSplit ?? false,
        stats: r.details.stats ?? NO_HOLD_STATS,
        lastObservedAt: ms(r.last_observed_at),
        staleSince: ms(r.stale_since),
        lastError: r.last_error,
        goneAt: ms(r.gone_at),
        lastChangeAt: ms(r.last_change_at),
        changesInWindow: r.flaps,
        lastExpiry:
          r.ex_at === null
            ? null
            : {
                at: r.ex_at.getTime(),
                fromHolder: r.ex_from,
                toHolder: r.ex_to,
                heldSince: r.ex_details?.heldSince ?? null,
                expiresAtBefore: r.ex_details?.expiresAtBefore ?? null,
              },
        stuckWords: r.holder === null ? null : (description.describeStuckHolder?.(details) ?? null),
      },
      sourceKind,
      resourceKind: r.kind,
      layout: scope?.layout ?? null,
      holderToken: r.holder_token,
      details,
      firstSeenAt: r.first_seen_at.getTime(),
      lastChange: r.lc_at === null ? null : { kind: r.lc_kind!, ending: r.lc_ending, fromHolder: r.lc_from, toHolder: r.lc_to, at: r.lc_at.toISOString() },
      expiriesInHour: r.expiries,
    };
  });
  return buildLocksBoard({
    nowMs,
    thresholds,
    clusters: clusters.map((c) => ({
      name: c.name,
      sourceKind: c.kind.toLowerCase() as LockSourceKind,
      pollIntervalMs: c.poll_interval_ms,
      lastPollAt: c.last_poll_at?.toISOString() ?? null,
      lastCycleMs: c.cycle_ms,
      lastPollErrorCount: c.error_count,
      lastPollError: c.error,
    })),
    locks: loaded,
  });
}
