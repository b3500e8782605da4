// What the database holds of a cluster's held_resource rows for the write-path tests: each row's
// version (xmin: it moves only when the row is written) and its effective last observation, read
// the way the read models read it.
import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { LAST_OBSERVED_AT, OBSERVATION_SWEEP_JOIN } from "@/lib/held-resources/last-observed-sql";

export type HeldRowVersion = { version: string; lastObservedAt: string | null; staleSince: string | null; goneAt: string | null };

export async function readHeldRows(db: Db, clusterId: number): Promise<Map<string, HeldRowVersion>> {
  const rows = await db.$queryRaw<
    { resource_key: string; version: string; last_observed_at: Date | null; stale_since: Date | null; gone_at: Date | null }[]
  >(sql`
    select r.resource_key, r.xmin::text as version, ${LAST_OBSERVED_AT} as last_observed_at, r.stale_since, r.gone_at
    from held_resource r
    ${OBSERVATION_SWEEP_JOIN}
    where r.cluster_id = ${clusterId}`);
  return new Map(
    rows.map((r) => [
      r.resource_key,
      {
        version: r.version,
        lastObservedAt: r.last_observed_at?.toISOString() ?? null,
        staleSince: r.stale_since?.toISOString() ?? null,
        goneAt: r.gone_at?.toISOString() ?? null,
      },
    ]),
  );
}

/** The keys whose rows were written between two reads (or appeared). */
export function writtenBetween(before: Map<string, HeldRowVersion>, after: Map<string, HeldRowVersion>): string[] {
  return [...after.entries()]
    .filter(([key, row]) => before.get(key)?.version !== row.version)
    .map(([key]) => key)
    .sort();
}
