import "server-only";

import type { Db } from "@/lib/db/client";
import { empty, sql, type Sql } from "@/lib/db/sql";
import type { PredictionOutcome } from "@/lib/poller/change";
import type { ChangeCause, ChangeKind, HoldEnding } from "@/lib/timeline/timeline-types";

export type ChangeEntry = {
  id: string;
  partition: number;
  kind: ChangeKind;
  cause: ChangeCause;
  /** Locks: how the previous hold ended (released, expired while held, taken over); null for Pulsar and for acquisitions. */
  ending: HoldEnding | null;
  fromHolder: string | null;
  toHolder: string | null;
  /** The change happened in (oldSeenAt, newSeenAt]. */
  oldSeenAt: string | null;
  newSeenAt: string;
  detectedAt: string;
  isDuringGap: boolean;
  /** Consumers before and after, hash-space shares moved, reconnect times (see lib/sources/pulsar/detect-changes.ts); for locks the tokens, expiry and waiters before and after (lib/poller/detect-hold-changes.ts). */
  details: Record<string, unknown>;
  /** The next holder predicted from the state just before the change (null: nobody, or no prediction). */
  predictedHolder: string | null;
  /** How the change compares with that prediction; null when no prediction covers it. */
  prediction: PredictionOutcome | null;
};

export type ChangePage = {
  changes: ChangeEntry[];
  /** Every change in the range, not only this page. */
  total: number;
  /** Pass as `cursor` for the next (older) page; null on the last. */
  nextCursor: string | null;
};

export const DEFAULT_CHANGE_LIMIT = 200;

type Row = {
  id: bigint;
  partition: number | null;
  kind: ChangeKind;
  cause: ChangeCause;
  ending: HoldEnding | null;
  from_holder: string | null;
  to_holder: string | null;
  old_seen_at: Date | null;
  new_seen_at: Date;
  detected_at: Date;
  is_during_gap: boolean;
  details: Record<string, unknown>;
  predicted_holder: string | null;
  prediction: PredictionOutcome | null;
};

/** "<newSeenAt ms>_<id>": the keyset position of a change, newest first. */
export function encodeChangeCursor(newSeenAtMs: number, id: string): string {
  return `${newSeenAtMs}_${id}`;
}

function decodeChangeCursor(cursor: string): { at: Date; id: bigint } {
  const [at, id] = cursor.split("_");
  return { at: new Date(Number(at)), id: BigInt(id!) };
}

/**
 * The scope of a change listing: one subscription (all partitions), one consumer's changes of
 * subscription partitions, or locks: one lock (key) or every lock of a pattern.
 */
export type ChangeScope =
  | { kind: "subscription"; cluster: string; topic: string; subscription: string }
  | { kind: "consumer"; name: string; clusters: string[] }
  | { kind: "lock"; cluster: string; key: string | null; pattern: string | null };

const PULSAR = sql`r.kind = 'PULSAR_SUBSCRIPTION_PARTITION'`;

function scopeCondition(scope: ChangeScope): Sql {
  if (scope.kind === "subscription") {
    return sql`c.name = ${scope.cluster} and ${PULSAR} and r.topic = ${scope.topic} and r.subscription = ${scope.subscription}`;
  }
  if (scope.kind === "lock") {
    const which = scope.key !== null ? sql`r.resource_key = ${scope.key}` : sql`r.details->>'pattern' = ${scope.pattern ?? ""}`;
    return sql`c.name = ${scope.cluster} and r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION' and ${which}`;
  }
  return sql`(h.to_holder = ${scope.name} or h.from_holder = ${scope.name}) and c.name = any(${scope.clusters}::text[]) and ${PULSAR}`;
}

export type ChangeRow = ChangeEntry & { cluster: string; topic: string; subscription: string; resourceKey: string };

/**
 * Changes in [from, to], newest first, a page at a time (keyset on newSeenAt, id), and how many
 * there are in the whole range (counted apart: the page reads details of its rows only).
 */
export async function listChanges(
  db: Db,
  scope: ChangeScope,
  options: { fromMs: number; toMs: number; limit?: number; cursor?: string },
): Promise<{ changes: ChangeRow[]; total: number; nextCursor: string | null }> {
  const limit = options.limit ?? DEFAULT_CHANGE_LIMIT;
  const from = new Date(options.fromMs);
  const to = new Date(options.toMs);
  const after = options.cursor ? decodeChangeCursor(options.cursor) : null;
  const where = sql`${scopeCondition(scope)} and h.new_seen_at >= ${from} and h.new_seen_at <= ${to}`;
  const [rows, [count]] = await Promise.all([
    db.$queryRaw<(Row & { cluster: string; topic: string | null; subscription: string | null; resource_key: string })[]>(sql`
      select h.id, h.kind, h.cause, h.ending, h.from_holder, h.to_holder, h.old_seen_at, h.new_seen_at, h.detected_at, h.is_during_gap, h.details,
        h.predicted_holder, h.prediction, r.partition, r.topic, r.subscription, r.resource_key, c.name as cluster
      from holder_change h
      join held_resource r on r.id = h.resource_id
      join cluster c on c.id = h.cluster_id
      where ${where} ${after ? sql`and (h.new_seen_at, h.id) < (${after.at}, ${after.id})` : empty}
      order by h.new_seen_at desc, h.id desc
      limit ${limit + 1}`),
    db.$queryRaw<{ total: number }[]>(sql`
      select count(*)::int as total
      from holder_change h join held_resource r on r.id = h.resource_id join cluster c on c.id = h.cluster_id
      where ${where}`),
  ]);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    changes: page.map((row) => ({
      id: row.id.toString(),
      cluster: row.cluster,
      topic: row.topic ?? "",
      subscription: row.subscription ?? "",
      resourceKey: row.resource_key,
      partition: row.partition ?? -1,
      kind: row.kind,
      cause: row.cause,
      ending: row.ending,
      fromHolder: row.from_holder,
      toHolder: row.to_holder,
      oldSeenAt: row.old_seen_at?.toISOString() ?? null,
      newSeenAt: row.new_seen_at.toISOString(),
      detectedAt: row.detected_at.toISOString(),
      isDuringGap: row.is_during_gap,
      details: row.details,
      predictedHolder: row.predicted_holder,
      prediction: row.prediction,
    })),
    total: count?.total ?? 0,
    nextCursor: rows.length > limit && last ? encodeChangeCursor(last.new_seen_at.getTime(), last.id.toString()) : null,
  };
}

/** One subscription's changes in a range, newest first, paged. */
export async function listSubscriptionChanges(
  db: Db,
  input: { cluster: string; topic: string; subscription: string; fromMs: number; toMs: number; limit?: number; cursor?: string },
): Promise<ChangePage> {
  const { changes, total, nextCursor } = await listChanges(db, { kind: "subscription", ...input }, input);
  return { changes: changes.map(({ cluster: _c, topic: _t, subscription: _s, resourceKey: _k, ...change }) => change), total, nextCursor };
}
