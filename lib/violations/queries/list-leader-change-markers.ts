import "server-only";

import type { Db } from "@/lib/db/client";
import { empty, sql } from "@/lib/db/sql";
import { OWNERSHIP_CHANGE_KINDS } from "@/lib/violations/change-kinds";
import { LEADER_CHANGE_COLUMNS, type LeaderChangeRow, toLeaderChangeMarker } from "@/lib/violations/queries/leader-change-rows";
import { buildBuckets, chooseBucketMs, minuteWindow } from "@/lib/violations/time-buckets";
import type { LeaderChangeMarkers } from "@/lib/violations/violation-types";

/** Each bucket lists its first few changes (for the marker's tooltip) and counts the rest. */
const CHANGES_PER_BUCKET = 5;

type Row = LeaderChangeRow & { bucket: number; bucket_count: number };

/**
 * Leader changes (and Key_Shared range moves) in the range, in the chart's buckets: the
 * violations chart's markers. Raw SQL for the per-bucket ranking (a window function) over the
 * (cluster, time) index of holder_change.
 */
export async function listLeaderChangeMarkers(
  db: Db,
  query: { fromMs: number; toMs: number; timeZone: string; subscription: string | null; nowMs?: number },
): Promise<LeaderChangeMarkers> {
  const nowMs = query.nowMs ?? Date.now();
  const { startMs, endMs } = minuteWindow(query.fromMs, query.toMs);
  const buckets = buildBuckets({
    fromMs: query.fromMs,
    toMs: query.toMs,
    bucketMs: chooseBucketMs(query.toMs - query.fromMs),
    timeZone: query.timeZone,
    nowMs,
  });
  const noMarkers: LeaderChangeMarkers = { from: new Date(query.fromMs).toISOString(), to: new Date(query.toMs).toISOString(), buckets: [], total: 0 };
  if (buckets.length === 0) return noMarkers;
  const starts = buckets.map((b) => new Date(b.start).toISOString());
  const rows = await db.$queryRaw<Row[]>(sql`
    select * from (
      select (width_bucket(h.new_seen_at, ${starts}::timestamptz[]) - 1)::int as bucket,
        (count(*) over (partition by width_bucket(h.new_seen_at, ${starts}::timestamptz[])))::int as bucket_count,
        row_number() over (partition by width_bucket(h.new_seen_at, ${starts}::timestamptz[]) order by h.new_seen_at, h.id) as rank,
        ${LEADER_CHANGE_COLUMNS}
      from holder_change h
      join held_resource r on r.id = h.resource_id
      join cluster c on c.id = h.cluster_id
      where h.cluster_id in (select id from cluster)
        and h.new_seen_at >= ${new Date(startMs).toISOString()}::timestamptz and h.new_seen_at < ${new Date(endMs).toISOString()}::timestamptz
        and h.kind::text = any(${[...OWNERSHIP_CHANGE_KINDS]}::text[])
        ${query.subscription === null ? empty : sql`and r.subscription = ${query.subscription}`}
    ) ranked
    where rank <= ${CHANGES_PER_BUCKET}
    order by bucket, new_seen_at, id`);

  const out = new Map<number, LeaderChangeMarkers["buckets"][number]>();
  for (const row of rows) {
    const bucket = buckets[row.bucket];
    if (!bucket) continue;
    let entry = out.get(row.bucket);
    if (!entry)
      out.set(
        row.bucket,
        (entry = { start: new Date(bucket.start).toISOString(), end: new Date(bucket.end).toISOString(), count: row.bucket_count, changes: [] }),
      );
    entry.changes.push(toLeaderChangeMarker(row));
  }
  const markerBuckets = [...out.values()];
  return { ...noMarkers, buckets: markerBuckets, total: markerBuckets.reduce((sum, b) => sum + b.count, 0) };
}
