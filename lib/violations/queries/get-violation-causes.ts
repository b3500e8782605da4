import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { join, sql } from "@/lib/db/sql";
import type { OtherInside } from "@/lib/violations/drilldown-types";
import { isChangeNear } from "@/lib/violations/explain-violations";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import { serviceWindowsSql } from "@/lib/deployments/window-sql";
import { readLeaderChanges } from "@/lib/violations/queries/read-leader-changes";
import { readLockChanges } from "@/lib/violations/queries/read-lock-changes";
import { computeOwners, type OwnerSettings } from "@/lib/violations/queries/read-owner-history";
import { refMatches, resourceRefOf } from "@/lib/violations/resource-ref";
import type { CauseCounts, ViolationCause } from "@/lib/violations/cause-words";
import { causeFactsOf, classifyCauses, countCauses, movesOf, silenceProbesOf } from "@/lib/violations/violation-cause";
import { readWorkerSilences } from "@/lib/violations/queries/read-worker-silences";
import { twoHandsSql } from "@/lib/violations/queries/two-hands-sql";

// The latest violations of a range, each with its cause (lib/violations/violation-cause.ts, the
// one precedence the drill-down uses too) and its key's owner then: what the violations page
// counts per cause and lists. The evidence is read for the whole page at once: the services'
// deployment windows in the same statement as the violations, then the leader changes of their
// subscriptions, the holder changes of their locks and the owners' history, one statement each.

/** One page holds at most this many violations: the evidence of a page stays within one read each. */
export const MAX_CAUSE_PAGE = 10_000;

export type ClassifiedViolation = {
  eventId: string;
  key: string;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  lock: string | null;
  observedAt: string;
  cause: ViolationCause;
  owner: ViolationOwner;
};

export type ViolationCauses = {
  from: string;
  to: string;
  windowMs: number;
  limit: number;
  /** True when the range holds more violations than `limit`: the page (and its counts) hold the latest. */
  isTruncated: boolean;
  /** The page's violations per cause (before the `cause` filter); they add up to the page's size. */
  counts: CauseCounts;
  /** The page's violations of the chosen cause (all when none), newest first. */
  violations: ClassifiedViolation[];
};

export type ViolationCausesQuery = {
  fromMs: number;
  toMs: number;
  service: string | null;
  subscription: string | null;
  cause: ViolationCause | null;
  limit: number;
};

export type CauseSettings = OwnerSettings & { graceMs: number; nowMs?: number };

type Row = {
  event_id: string;
  key: string;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  lock: string | null;
  observed_at: string;
  others_inside: { worker: string; enteredAt: number }[] | null;
  two_hands: string | null;
  inside: boolean;
};

/** The range's latest violations (one more than the page, to tell a truncation), each tested against its service's deployment windows, as one JSON value. */
async function readViolations(db: SqlDb, query: ViolationCausesQuery, settings: CauseSettings, nowMs: number): Promise<Row[]> {
  const scope = {
    startMs: query.fromMs,
    endMs: query.toMs,
    graceMs: settings.graceMs,
    nowMs,
    service: query.service,
    subscription: query.subscription,
    environment: null,
  };
  const conditions = [
    sql`e.observed_at >= ${new Date(query.fromMs).toISOString()}::timestamptz`,
    sql`e.observed_at < ${new Date(query.toMs).toISOString()}::timestamptz`,
    // is_violation prunes the non-violation partitions; counter > 0 matches the partial indexes.
    sql`e.is_violation and e.counter > 0`,
  ];
  if (query.service !== null) conditions.push(sql`e.service = ${query.service}`);
  if (query.subscription !== null) conditions.push(sql`coalesce(e.subscription, '') = ${query.subscription}`);
  const [result] = await db.$queryRaw<{ rows: Row[] }[]>(sql`
    select coalesce(json_agg(x), '[]') as rows from (
      select baton_id_text(e.event_id) as event_id, e.key, e.service, e.worker, e.topic, e.subscription, e.partition, e.lock, e.observed_at, e.others_inside,
        ${twoHandsSql} as two_hands, coalesce(e.observed_at <@ w.w, false) as inside
      from exclusivity_event e
      left join (${serviceWindowsSql(scope)}) w on w.service = e.service
      where ${join(conditions, " and ")}
      order by e.observed_at desc, e.event_id desc
      limit ${query.limit + 1}
    ) x`);
  return result?.rows ?? [];
}

export async function getViolationCauses(db: SqlDb, query: ViolationCausesQuery, settings: CauseSettings): Promise<ViolationCauses> {
  const nowMs = settings.nowMs ?? Date.now();
  const rows = await readViolations(db, query, settings, nowMs);
  const page = rows.slice(0, query.limit).map((row) => ({
    eventId: row.event_id,
    key: row.key,
    service: row.service,
    worker: row.worker,
    topic: row.topic,
    subscription: row.subscription,
    partition: row.partition,
    lock: row.lock,
    observedAt: new Date(row.observed_at).toISOString(),
  }));
  const evidence = rows.slice(0, query.limit).map((row) => ({
    othersInside: (row.others_inside ?? []).map((o): OtherInside => ({ worker: o.worker, enteredAt: new Date(o.enteredAt).toISOString() })),
    isInsideDeployment: row.inside,
    twoHands: row.two_hands,
    resource: resourceRefOf(row),
  }));
  const located = page.map((v, i) => ({ observedAt: v.observedAt, resource: evidence[i]!.resource }));
  const [owners, leaderChanges, lockChanges] = await Promise.all([
    computeOwners(db, page, settings),
    readLeaderChanges(db, located, settings.windowMs),
    readLockChanges(db, page, settings.windowMs),
  ]);
  const nearChanges = page.map((v, i) => {
    const atMs = Date.parse(v.observedAt);
    const { resource } = evidence[i]!;
    return resource === null ? [] : leaderChanges.filter((c) => refMatches(resource, c) && isChangeNear(c, atMs, settings.windowMs));
  });
  const isSilentBefore = await readWorkerSilences(
    db,
    page.flatMap((v, i) => silenceProbesOf(v.worker, v.observedAt, movesOf(owners[i]!, nearChanges[i]!))),
  );
  const subjects = page.map((v, i) => {
    const atMs = Date.parse(v.observedAt);
    const { othersInside, isInsideDeployment, twoHands } = evidence[i]!;
    const facts = causeFactsOf({
      twoHands,
      observedAt: v.observedAt,
      worker: v.worker,
      othersInside,
      isInsideDeployment,
      leaderChanges: nearChanges[i]!,
      lockChanges: v.lock === null ? [] : lockChanges.filter((c) => c.lock === v.lock && isChangeNear(c, atMs, settings.windowMs)),
      owner: owners[i]!,
      isSilentBefore,
    });
    return { key: v.key, facts, othersInside };
  });
  const causes = classifyCauses(subjects);
  const classified = page.map((v, i): ClassifiedViolation => ({ ...v, cause: causes[i]!, owner: owners[i]! }));
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    windowMs: settings.windowMs,
    limit: query.limit,
    isTruncated: rows.length > query.limit,
    counts: countCauses(classified.map((v) => v.cause)),
    violations: query.cause === null ? classified : classified.filter((v) => v.cause === query.cause),
  };
}
