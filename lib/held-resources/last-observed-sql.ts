import { sql } from "@/lib/db/sql";
import "server-only";

// held_resource rows are written only when something about them changed (lib/poller/row-changes.ts),
// so a row's own last_observed_at is the time it was last written. Its effective last
// observation comes from its cluster's latest full cycle (observation_sweep): a row that is
// neither stale nor gone was observed by that cycle. The same derivation as
// deriveLastObservations (lib/poller/observation-sweep.ts), in SQL. Both fragments expect the
// held_resource row under the alias `r`.

/** Joins `r` to its cluster's latest full cycle of its kind, as `sweep`. */
export const OBSERVATION_SWEEP_JOIN = sql`left join observation_sweep sweep on sweep.cluster_id = r.cluster_id and sweep.kind = r.kind`;

/** `r`'s effective last observation (needs OBSERVATION_SWEEP_JOIN). */
export const LAST_OBSERVED_AT = sql`(case when r.stale_since is null and r.gone_at is null and r.last_observed_at is not null
  then greatest(r.last_observed_at, sweep.observed_at) else r.last_observed_at end)`;
