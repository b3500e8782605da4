import "server-only";

import type { BoardThresholds, ClusterSnapshot, DeploymentWindow, LeadersBoard, ResourceSnapshot, SampleSnapshot } from "@/lib/board/board-types";
import { filterGroups } from "@/lib/board/board-filters";
import { buildBoard } from "@/lib/board/build-board";
import { join, sql, type Sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { boardDeploymentsJsonSql } from "@/lib/deployments/list-deployment-windows";
import { listPredictionScores } from "@/lib/clusters/list-prediction-scores";
import { createSharedAnswers } from "@/lib/subscriptions/shared-answer";
import type { HashRangeSplit } from "@/lib/poller/contract/hash-range-split";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

export type LeadersQuery = {
  cluster: string | null;
  tenant: string | null;
  namespace: string | null;
  /** Exact topic and subscription: the subscription page reads one subscription. */
  topic: string | null;
  subscription: string | null;
  q: string;
  includeGone: boolean;
};

export const ALL_LEADERS: LeadersQuery = { cluster: null, tenant: null, namespace: null, topic: null, subscription: null, q: "", includeGone: false };

const NO_SAMPLES: SampleSnapshot[] = [];

/**
 * Key_Shared splits by resource id, with the lastChangeAt they were read at. A split has up to
 * ~330 ranges and changes rarely; when it does, the poller records a change (RANGES_MOVED, or a
 * holder or consumer change), which moves lastChangeAt: so (id, lastChangeAt) names one version
 * of it, and the board asks the database only for splits it does not hold in that version.
 */
type CachedSplit = { lastChangeAt: number | null; split: HashRangeSplit };
const splitCache = new Map<number, CachedSplit>();
/** Past this many, the cache starts over (a board this large re-reads its splits once). */
const MAX_CACHED_SPLITS = 50_000;

/**
 * The resources are read in this many statements at once, each on its own connection (and so
 * on its own core), each over one range of ids: ranges, not `id % n`, because the planner
 * estimates a range from its statistics but guesses a handful of rows for a modulo, and then
 * joins the known splits by nested loops (measured: five times slower).
 */
const SHARE_COUNT = 2;

/** Id ranges [from, to) that split the resources into SHARE_COUNT parts of about equal size. */
async function idRanges(db: SqlDb): Promise<{ from: bigint; to: bigint }[]> {
  const [bounds] = await db.$queryRaw<{ lo: bigint | null; hi: bigint | null }[]>(sql`select min(id) as lo, max(id) as hi from held_resource`);
  if (!bounds || bounds.lo === null || bounds.hi === null) return [{ from: 0n, to: 1n }];
  const width = (bounds.hi - bounds.lo) / BigInt(SHARE_COUNT) + 1n;
  return Array.from({ length: SHARE_COUNT }, (_, i) => ({ from: bounds.lo! + width * BigInt(i), to: bounds.lo! + width * BigInt(i + 1) }));
}

/** The holder-change kinds that count towards flapping. */
const FLAP_KINDS = sql`('HOLDER_CHANGED', 'HOLDER_LOST', 'HOLDER_APPEARED', 'HIDDEN_FLAP', 'REPLAYED_FLAP')`;

/**
 * One resource as a positional JSON array (json_build_array): the answer for 10,000 resources
 * is one JSON text that Node parses natively, instead of 200,000 values the driver converts one
 * by one. (Nesting partitions under their subscription in SQL measured slower.) Times are epoch
 * milliseconds.
 */
type Row = [
  id: number,
  cluster: string,
  tenant: string | null,
  namespace: string | null,
  topic: string | null,
  partition: number | null,
  subscription: string | null,
  subscriptionType: string | null,
  isDurable: boolean,
  holder: string | null,
  holderSince: number | null,
  consumerNames: string[],
  /** true: unchanged since the copy this process holds (see splitCache). */
  hashRanges: HashRangeSplit | true | null,
  backlog: number | null,
  msgRateOut: number | null,
  /** Only where the stuck-leader rule may fire, and only the newest stuckSamples of them. */
  samples: SampleSnapshot[] | null,
  lastObservedAt: number | null,
  staleSince: number | null,
  lastError: string | null,
  goneAt: number | null,
  lastChangeAt: number | null,
  flaps: number,
];

/** JSON from json_build_object: timestamps arrive as PostgreSQL's ISO text ("...+00:00"). */
type ContextRow = {
  clusters: {
    name: string;
    pollIntervalMs: number;
    lastPollAt: string | null;
    lastCycleMs: number | null;
    lastPollErrorCount: number | null;
    lastPollError: string | null;
  }[];
  deployments: { service: string; version: string; startedAt: string; finishedAt: string | null }[];
};

/** A timestamp as epoch milliseconds (cheaper for PostgreSQL than formatting text, and for Node than parsing it). */
function msOf(column: Sql): Sql {
  // date_part, not extract: extract computes in numeric, several times slower over 50,000 values.
  return sql`(date_part('epoch', ${column}) * 1000)::bigint`;
}

const isoText = (text: string | null): string | null => (text === null ? null : new Date(text).toISOString());

/** The split of a row: the one sent, remembered for next time, or the one held ("true"). */
function resolveSplit(id: number, sent: HashRangeSplit | true | null, lastChangeAt: number | null, known: Map<number, CachedSplit>): HashRangeSplit | null {
  if (sent === null) return null;
  if (sent === true) return known.get(id)!.split;
  if (splitCache.size >= MAX_CACHED_SPLITS) splitCache.clear();
  splitCache.set(id, { lastChangeAt, split: sent });
  return sent;
}

/**
 * The leaders board for the given clusters: the small things in one statement, the resources
 * in SHARE_COUNT statements at once. Raw SQL because the rows are trimmed and shaped in the
 * database (consumer names only, samples only where they matter, one JSON text per share) and
 * the flapping counts are joined in: at 10,000 rows, what Node has to parse is most of the
 * request's time.
 */
export async function listLeaders(
  db: SqlDb,
  options: { clusterNames: string[]; thresholds: BoardThresholds; query: LeadersQuery; nowMs?: number },
): Promise<LeadersBoard> {
  const { thresholds, query } = options;
  const stuckSamples = Math.max(2, thresholds.stuckSamples);
  const nowMs = options.nowMs ?? Date.now();
  const clusterNames = query.cluster === null ? options.clusterNames : options.clusterNames.filter((name) => name === query.cluster);
  const windowStart = new Date(nowMs - thresholds.flapWindowMs);

  const conditions = [sql`r.kind = 'PULSAR_SUBSCRIPTION_PARTITION'`, sql`r.subscription_type is distinct from 'Shared'`];
  if (!query.includeGone) conditions.push(sql`r.gone_at is null`);
  if (query.tenant !== null) conditions.push(sql`r.tenant = ${query.tenant}`);
  if (query.namespace !== null) conditions.push(sql`r.namespace = ${query.namespace}`);
  if (query.topic !== null) conditions.push(sql`r.topic = ${query.topic}`);
  if (query.subscription !== null) conditions.push(sql`r.subscription = ${query.subscription}`);

  // The versions this process holds, fixed for this request (the cache may be refilled below).
  const known = new Map(splitCache);
  // As two comma-separated texts: binding thousands of array elements one by one costs the
  // driver more than PostgreSQL's splitting of one string.
  const knownIds = [...known.keys()].join(",");
  const knownChanges = [...known.values()].map((split) => split.lastChangeAt ?? "").join(",");
  const ranges = await idRanges(db);
  const [predictions, [[context], ...parts]] = await Promise.all([
    listPredictionScores(db, clusterNames),
    Promise.all([
      // The small things, in one statement: each cluster's latest poll, and the deployments
      // that overlap the flapping window (an open one counts for a day at most).
      db.$queryRaw<ContextRow[]>(sql`
      select
        (select coalesce(json_agg(json_build_object('name', c.name, 'pollIntervalMs', c.poll_interval_ms, 'lastPollAt', p.finished_at, 'lastCycleMs', p.cycle_ms,
             'lastPollErrorCount', p.error_count, 'lastPollError', p.errors->0->>'message')), '[]')
           from cluster c
           left join lateral (select finished_at, cycle_ms, error_count, errors from poll_run where cluster_id = c.id order by started_at desc limit 1) p on true
           where c.name = any(${clusterNames}::text[])) as clusters,
        ${boardDeploymentsJsonSql({ fromMs: windowStart.getTime(), nowMs })} as deployments`),
      // Every resource in scope with its flapping count (one grouped scan of holder_change over
      // its (cluster, time) index, not one query per resource), one statement per id range.
      ...ranges.map((ids) =>
        db.$queryRaw<{ rows: string }[]>(sql`
      with f as (
        select h.resource_id, count(*)::int as flaps
        from holder_change h
        where h.cluster_id in (select id from cluster where name = any(${clusterNames}::text[]))
          and h.new_seen_at > ${windowStart} and h.kind in ${FLAP_KINDS}
        group by h.resource_id
      )
      select coalesce(json_agg(json_build_array(
        r.id, c.name, r.tenant, r.namespace, r.topic, r.partition, r.subscription, r.subscription_type, r.is_durable,
        r.holder, ${msOf(sql`r.holder_since`)}, jsonb_path_query_array(r.consumers, '$[*].name'),
        case when r.hash_ranges is null then null
          when k.id is not null and k.last_change_at is not distinct from ${msOf(sql`r.last_change_at`)} then 'true'::jsonb
          else r.hash_ranges end,
        r.backlog, r.msg_rate_out,
        -- Samples only where the stuck-leader rule can fire: a holder, and a backlog that grew
        -- from the first to the last of its newest N samples (a necessary condition).
        case when r.holder is not null and jsonb_array_length(r.recent_samples) >= ${stuckSamples}::int
          and (r.recent_samples -> -1 ->> 'backlog')::float8 > (r.recent_samples -> ${-stuckSamples}::int ->> 'backlog')::float8
          then jsonb_path_query_array(r.recent_samples, '$[last - $n to last]', jsonb_build_object('n', ${stuckSamples - 1}::int)) end,
        ${msOf(LAST_OBSERVED_AT)}, ${msOf(sql`r.stale_since`)}, r.last_error, ${msOf(sql`r.gone_at`)},
        ${msOf(sql`r.last_change_at`)}, coalesce(f.flaps, 0)
      )), '[]')::text as rows
      from held_resource r
      join cluster c on c.id = r.cluster_id
      ${OBSERVATION_SWEEP_JOIN}
      left join f on f.resource_id = r.id
      left join unnest(string_to_array(${knownIds}, ',')::bigint[], string_to_array(${knownChanges}, ',', '')::bigint[]) as k(id, last_change_at) on k.id = r.id
      where c.name = any(${clusterNames}::text[]) and ${join(conditions, " and ")} and r.id >= ${ids.from} and r.id < ${ids.to}`),
      ),
    ]),
  ]);

  const byName = new Map(context!.clusters.map((c) => [c.name, c]));
  const clusterSnapshots: ClusterSnapshot[] = clusterNames.map((name) => {
    const c = byName.get(name);
    return {
      name,
      pollIntervalMs: c?.pollIntervalMs ?? 0,
      lastPollAt: isoText(c?.lastPollAt ?? null),
      lastCycleMs: c?.lastCycleMs ?? null,
      lastPollErrorCount: c?.lastPollErrorCount ?? null,
      lastPollError: c?.lastPollError ?? null,
    };
  });
  const resources: ResourceSnapshot[] = parts
    .flatMap(([part]) => JSON.parse(part!.rows) as Row[])
    .map((r) => ({
      cluster: r[1],
      tenant: r[2] ?? "",
      namespace: r[3] ?? "",
      topic: r[4] ?? "",
      partition: r[5] ?? -1,
      subscription: r[6] ?? "",
      subscriptionType: r[7],
      isDurable: r[8],
      holder: r[9],
      holderSince: r[10],
      consumers: r[11],
      hashRanges: resolveSplit(r[0], r[12], r[20], known),
      backlog: r[13],
      msgRateOut: r[14],
      recentSamples: r[15] ?? NO_SAMPLES,
      lastObservedAt: r[16],
      staleSince: r[17],
      lastError: r[18],
      goneAt: r[19],
      lastChangeAt: r[20],
      changesInWindow: r[21],
    }));
  const deploymentWindows: DeploymentWindow[] = context!.deployments.map((d) => ({
    service: d.service,
    version: d.version,
    startedAt: new Date(d.startedAt).toISOString(),
    finishedAt: isoText(d.finishedAt),
  }));

  const board = buildBoard({ nowMs, thresholds, clusters: clusterSnapshots, resources, deployments: deploymentWindows, predictions });
  if (!query.q.trim()) return board;
  return { ...board, subscriptions: filterGroups(board.subscriptions, { ...query, cluster: null, tenant: null, namespace: null, kind: null }) };
}

const sharedBoards = createSharedAnswers<LeadersBoard>();

/**
 * listLeaders for the board's readers (its API and its page): requests for the same board while
 * one is being computed share it (see shared-answer.ts).
 */
export function readLeaders(db: SqlDb, options: { clusterNames: string[]; thresholds: BoardThresholds; query: LeadersQuery }): Promise<LeadersBoard> {
  const key = JSON.stringify([options.clusterNames, options.thresholds, options.query]);
  return sharedBoards.get(key, () => listLeaders(db, options));
}
