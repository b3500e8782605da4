import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";

/** What a timeline page shows: one subscription (all partitions), or one lock or a pattern's locks. */
export type FirstSeenScope =
  | { kind: "subscription"; cluster: string; topic: string; subscription: string }
  | { kind: "lock"; cluster: string; key: string | null; pattern: string | null };

/** When Baton first saw the resource (the earliest of its rows), in epoch ms; null if never. The page fits its default range to it. */
export async function getFirstSeen(db: Db, scope: FirstSeenScope): Promise<number | null> {
  const which =
    scope.kind === "subscription"
      ? sql`r.kind = 'PULSAR_SUBSCRIPTION_PARTITION' and r.topic = ${scope.topic} and r.subscription = ${scope.subscription}`
      : scope.key !== null
        ? sql`r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION' and r.resource_key = ${scope.key}`
        : sql`r.kind <> 'PULSAR_SUBSCRIPTION_PARTITION' and r.details->>'pattern' = ${scope.pattern ?? ""}`;
  const [row] = await db.$queryRaw<{ first_seen_at: Date | null }[]>(sql`
    select min(r.first_seen_at) as first_seen_at from held_resource r
    where r.cluster_id = (select id from cluster where name = ${scope.cluster}) and ${which}`);
  return row?.first_seen_at?.getTime() ?? null;
}
