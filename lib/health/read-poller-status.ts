import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import type { PollerStatus } from "@/lib/health/health-report";

/** A cluster with its lease (null columns when none) and its latest poll run (null columns when none). */
type StatusRow = {
  name: string;
  poller_id: string | null;
  epoch: bigint | null;
  acquired_at: Date | null;
  heartbeat_at: Date | null;
  finished_at: Date | null;
  cycle_ms: number | null;
  duration_ms: number | null;
  error_count: number | null;
  errors: unknown;
  topic_count: number | null;
  resource_count: number | null;
  failing_since: Date | null;
};

/** Who polls each cluster (lease holder and epoch) and how its last cycle went. */
export async function readPollerStatus(db: SqlDb, clusterNames: string[]): Promise<Map<string, PollerStatus>> {
  // The latest run per cluster: poll_run_cluster_time_idx, read backwards, one row each. A run
  // "read nothing" when it had errors and touched no resource (a stale resource is touched):
  // failing_since is the start of the trailing streak of such runs, when the latest is one.
  const rows = await db.$queryRaw<StatusRow[]>(sql`
    select c.name, l.poller_id, l.epoch, l.acquired_at, l.heartbeat_at, r.finished_at, r.cycle_ms, r.duration_ms, r.error_count, r.errors, r.topic_count, r.resource_count,
      f.failing_since
    from cluster c
    left join poller_lease l on l.cluster_id = c.id
    left join lateral (
      select started_at, finished_at, cycle_ms, duration_ms, error_count, errors, topic_count, resource_count from poll_run
      where cluster_id = c.id order by started_at desc limit 1
    ) r on true
    left join lateral (
      select min(p.started_at) as failing_since from poll_run p
      where r.error_count > 0 and r.resource_count = 0 and p.cluster_id = c.id
        and p.started_at > coalesce((
          select max(ok.started_at) from poll_run ok where ok.cluster_id = c.id and (ok.error_count = 0 or ok.resource_count > 0)
        ), '-infinity'::timestamptz)
    ) f on true
    where c.name = any(${clusterNames}::text[])`);
  return new Map(
    rows.map((row) => [
      row.name,
      {
        pollerId: row.poller_id,
        epoch: row.epoch === null ? null : Number(row.epoch),
        acquiredAt: row.acquired_at?.toISOString() ?? null,
        heartbeatAt: row.heartbeat_at?.toISOString() ?? null,
        lastPollAt: row.finished_at?.toISOString() ?? null,
        lastCycleMs: row.cycle_ms,
        lastDurationMs: row.duration_ms,
        lastErrorCount: row.error_count,
        lastError: row.errors === null ? null : ((row.errors as { message?: string }[])[0]?.message ?? null),
        topicCount: row.topic_count,
        resourceCount: row.resource_count,
        failingSince: row.failing_since?.toISOString() ?? null,
      },
    ]),
  );
}
