import "server-only";

import { sql } from "@/lib/db/sql";
import type { LeaderChangeMarker } from "@/lib/violations/violation-types";

// A leader change as the violation pages read it: the columns selected (from holder_change h,
// held_resource r and cluster c), the row they give, and the marker the API answers.

export const LEADER_CHANGE_COLUMNS = sql`h.id, c.name as cluster, r.topic, coalesce(r.partition, -1) as partition, r.subscription,
  h.kind::text as kind, h.cause::text as cause, h.from_holder, h.to_holder, h.old_seen_at, h.new_seen_at`;

export type LeaderChangeRow = {
  id: bigint;
  cluster: string;
  topic: string;
  partition: number;
  subscription: string;
  kind: string;
  cause: string;
  from_holder: string | null;
  to_holder: string | null;
  old_seen_at: Date | null;
  new_seen_at: Date;
};

export function toLeaderChangeMarker(row: LeaderChangeRow): LeaderChangeMarker {
  return {
    id: row.id.toString(),
    cluster: row.cluster,
    topic: row.topic,
    partition: row.partition,
    subscription: row.subscription,
    kind: row.kind,
    cause: row.cause,
    fromHolder: row.from_holder,
    toHolder: row.to_holder,
    oldSeenAt: row.old_seen_at?.toISOString() ?? null,
    newSeenAt: row.new_seen_at.toISOString(),
  };
}
