import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import type { WorkerReplicaStatus } from "@/lib/health/health-report";
import { fleetKeyOf } from "@/lib/poller/fleet/plan-share";
import { REPLICA_LOCK_CLASS } from "@/lib/poller/fleet/replica-leases";

// The worker replicas of the fleet that polls these clusters (lib/poller/fleet/): each one's
// clusters, when it took each, its last heartbeat, and whether it is alive now (its lock
// connection holds the fleet's membership lock). One statement. A replica that stopped or died
// more than a day ago is left out.

const FORGET_AFTER = "1 day";

type Row = {
  replica_id: string;
  started_at: Date;
  heartbeat_at: Date;
  stopped_at: Date | null;
  is_alive: boolean;
  clusters: { name: string; since: string }[] | null;
};

export async function readWorkerReplicas(db: SqlDb, clusterNames: string[]): Promise<WorkerReplicaStatus[]> {
  const rows = await db.$queryRaw<Row[]>(sql`
    select r.replica_id, r.started_at, r.heartbeat_at, r.stopped_at,
      exists (
        select 1 from pg_locks k
        where k.pid = r.lock_pid and k.locktype = 'advisory' and k.granted and k.classid = ${REPLICA_LOCK_CLASS}::bigint::oid and k.objid = r.fleet_key::bigint::oid
      ) as is_alive,
      (select json_agg(json_build_object('name', c.name, 'since', l.acquired_at) order by c.name)
       from poller_lease l join cluster c on c.id = l.cluster_id
       where l.poller_id = r.replica_id and c.name = any(${clusterNames}::text[])) as clusters
    from worker_replica r
    where r.fleet_key = ${fleetKeyOf(clusterNames)} and r.heartbeat_at > now() - ${FORGET_AFTER}::interval
    order by r.replica_id`);
  return rows.map((row) => ({
    replicaId: row.replica_id,
    isAlive: row.is_alive,
    startedAt: row.started_at.toISOString(),
    heartbeatAt: row.heartbeat_at.toISOString(),
    stoppedAt: row.stopped_at?.toISOString() ?? null,
    // Only the clusters it holds while alive: a dead replica's lease rows wait for a taker.
    clusters: row.is_alive ? (row.clusters ?? []).map((c) => ({ name: c.name, since: new Date(c.since).toISOString() })) : [],
  }));
}
