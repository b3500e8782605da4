import "server-only";

import pg from "pg";

import { sleep } from "@/lib/sleep";
import { fleetKeyOf, hash31, planShare, takeOrder } from "@/lib/poller/fleet/plan-share";
import { POLLER_LOCK_CLASS } from "@/lib/poller/poller-lease";

// The cluster leases of one worker replica, on PostgreSQL and nothing else. Each replica keeps
// one lock connection: on it, a shared advisory lock on the fleet's key says it is alive (the
// fleet's live replicas are the holders of that lock in pg_locks, exact the moment a replica's
// session ends), and a session advisory lock per cluster it polls (the same lock a single poller
// takes: lib/poller/poller-lease.ts). Every retry interval, three statements: the replica's
// heartbeat with the fleet's live replicas, the heartbeat of its leases (a superseded epoch is
// a lost lease), and, while it holds fewer than its share of N over W, one statement that tries
// the free leases in order and takes up to what it lacks (lib/poller/fleet/plan-share.ts). A replica over its share stops polling
// the surplus clusters after their current cycle and unlocks them: another takes them at its next
// retry. A replica cut off from PostgreSQL loses its session to the server's idle timeout (a few
// retry intervals without a statement), and with it every lease; a SIGKILLed one at once.

/** Advisory lock namespace of fleet membership: "BATR". The second key is the fleet's. */
export const REPLICA_LOCK_CLASS = 0x42415452;

export type LeaseCallbacks = {
  /** A lease was taken: poll the cluster under this epoch. */
  onTaken(clusterId: number, epoch: bigint): void;
  /** Stop polling the cluster after its current cycle; resolves once stopped (the lease is then given back). */
  stopPolling(clusterId: number): Promise<void>;
  /** The lease is gone without a hand-over (lock connection lost, epoch superseded): stop at once. */
  onLost(clusterId: number, reason: string): void;
};

export type ReplicaLeasesOptions = {
  databaseUrl: string;
  replicaId: string;
  /** The fleet's clusters (every replica of a fleet has the same), by id, with their names for the log. */
  clusters: ReadonlyMap<number, string>;
  retryMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
  callbacks: LeaseCallbacks;
  /** Told the number of leases held after every change. */
  onLeaseCount?: (count: number) => void;
  /** Told of every statement sent on the lock connection (what the fleet costs PostgreSQL). */
  onStatement?: () => void;
};

/** The lock connection, counting its statements. */
type LockSession = {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  end(): Promise<void>;
};

type Held = Map<number, bigint>;

async function connect(options: ReplicaLeasesOptions, fleetKey: number): Promise<LockSession> {
  const client = new pg.Client({
    connectionString: options.databaseUrl,
    application_name: `baton-fleet ${options.replicaId}`,
    keepAlive: true,
    statement_timeout: Math.max(5_000, options.retryMs * 2),
  });
  client.on("error", () => undefined); // surfaced by the next statement instead
  await client.connect();
  const session: LockSession = {
    query: (text, values) => {
      options.onStatement?.();
      return client.query(text, values);
    },
    end: () => client.end(),
  };
  // A replica that stops sending statements (cut off, frozen) loses its session, and its leases,
  // after a few retry intervals: the server does not wait for TCP to notice.
  await session.query(`set idle_session_timeout = ${Math.max(10_000, options.retryMs * 5)}`);
  await session.query("select pg_advisory_lock_shared($1::int, $2::int)", [REPLICA_LOCK_CLASS, fleetKey]);
  return session;
}

/** The replica's heartbeat; returns the fleet's live replicas (their ids, this one's among them). */
async function heartbeat(client: LockSession, options: ReplicaLeasesOptions, fleetKey: number, leaseCount: number): Promise<string[]> {
  // The statement's own insert is not visible to its select: this replica is added after.
  const result = await client.query<{ replica_id: string }>(
    `with me as (
       insert into worker_replica (replica_id, fleet_key, started_at, heartbeat_at, lease_count, lock_pid) values ($1, $2, now(), now(), $3, pg_backend_pid())
       on conflict (replica_id) do update
         set fleet_key = excluded.fleet_key, heartbeat_at = now(), lease_count = excluded.lease_count, lock_pid = excluded.lock_pid, stopped_at = null
       returning 1
     )
     select r.replica_id from worker_replica r
     where r.fleet_key = $2 and r.replica_id <> $1 and exists (
       select 1 from pg_locks k
       where k.pid = r.lock_pid and k.locktype = 'advisory' and k.granted and k.classid = $4::bigint::oid and k.objid = $2::bigint::oid and k.objsubid = 2
     )`,
    [options.replicaId, fleetKey, leaseCount, REPLICA_LOCK_CLASS],
  );
  return [options.replicaId, ...result.rows.map((row) => row.replica_id)];
}

/** Renews the held leases' heartbeats; returns those whose epoch is no longer this replica's. */
async function renewLeases(client: LockSession, options: ReplicaLeasesOptions, held: Held): Promise<number[]> {
  if (held.size === 0) return [];
  const result = await client.query<{ cluster_id: number; epoch: string }>(
    "update poller_lease set heartbeat_at = now() where cluster_id = any($1::int[]) and poller_id = $2 returning cluster_id, epoch::text",
    [[...held.keys()], options.replicaId],
  );
  const current = new Map(result.rows.map((row) => [row.cluster_id, BigInt(row.epoch)]));
  return [...held].filter(([id, epoch]) => current.get(id) !== epoch).map(([id]) => id);
}

type Taken = { clusterId: number; epoch: bigint; previous: string | null };

/** One statement: try the free leases in order, lock up to `count`, and bump each one's epoch. */
async function takeLeases(client: LockSession, options: ReplicaLeasesOptions, order: number[], count: number): Promise<Taken[]> {
  if (count === 0 || order.length === 0) return [];
  // unnest keeps the array's order, and LIMIT stops the scan (and the tries) at `count` locks.
  const result = await client.query<{ cluster_id: number; epoch: string; previous: string | null }>(
    `with got as (
       select id from unnest($1::int[]) as t(id) where pg_try_advisory_lock($2::int, id) limit $3
     ),
     old as (select cluster_id, poller_id from poller_lease where cluster_id in (select id from got))
     insert into poller_lease (cluster_id, epoch, poller_id, acquired_at, heartbeat_at)
     select id, 1, $4, now(), now() from got
     on conflict (cluster_id) do update set epoch = poller_lease.epoch + 1, poller_id = excluded.poller_id, acquired_at = now(), heartbeat_at = now()
     returning cluster_id, epoch::text, (select o.poller_id from old o where o.cluster_id = poller_lease.cluster_id) as previous`,
    [order, POLLER_LOCK_CLASS, count, options.replicaId],
  );
  return result.rows.map((row) => ({ clusterId: row.cluster_id, epoch: BigInt(row.epoch), previous: row.previous }));
}

/** Why a lease came to this replica: the previous holder's fate, as the fleet's rows and the server's locks tell it. */
async function describeTakes(client: LockSession, taken: Taken[]): Promise<Map<number, string>> {
  const previous = [...new Set(taken.flatMap((t) => (t.previous === null ? [] : [t.previous])))];
  const { rows } =
    previous.length === 0
      ? { rows: [] }
      : await client.query<{ replica_id: string; stopped: boolean; alive: boolean }>(
          // Alive: its lock connection still holds the fleet's membership lock. (pg_stat_activity
          // may still list a backend that is exiting and has already released its locks.)
          `select replica_id, stopped_at is not null as stopped,
             exists (
               select 1 from pg_locks k
               where k.pid = r.lock_pid and k.locktype = 'advisory' and k.granted and k.classid = $2::bigint::oid and k.objid = r.fleet_key::bigint::oid
             ) as alive
           from worker_replica r where replica_id = any($1)`,
          [previous, REPLICA_LOCK_CLASS],
        );
  const fate = new Map(
    rows.map((row) => [
      row.replica_id,
      row.stopped ? `${row.replica_id} shut down` : row.alive ? `${row.replica_id} gave it back` : `death of replica ${row.replica_id}`,
    ]),
  );
  return new Map(taken.map((t) => [t.clusterId, t.previous === null ? "nobody polled it yet" : (fate.get(t.previous) ?? `from poller ${t.previous}`)]));
}

async function unlock(client: LockSession, ids: number[]): Promise<void> {
  if (ids.length > 0) await client.query("select pg_advisory_unlock($1::int, id) from unnest($2::int[]) as t(id)", [POLLER_LOCK_CLASS, ids]);
}

/**
 * Holds this replica's share of the fleet's cluster leases until `signal` aborts, then hands
 * every one over (each poller ends its cycle first) and leaves the fleet.
 */
export async function runReplicaLeases(options: ReplicaLeasesOptions): Promise<void> {
  const { log, callbacks, clusters } = options;
  const fleetKey = fleetKeyOf([...clusters.values()]);
  const seed = hash31(options.replicaId);
  const held: Held = new Map();
  const nameOf = (id: number) => clusters.get(id) ?? `cluster ${id}`;
  const count = () => options.onLeaseCount?.(held.size);
  let client: LockSession | null = null;
  let isNewMember = true;

  const loseAll = (reason: string) => {
    for (const id of held.keys()) {
      log(`lease lost: ${nameOf(id)} (${reason})`);
      callbacks.onLost(id, reason);
    }
    held.clear();
    count();
  };

  const giveBack = async (ids: number[], reason: string) => {
    for (const id of ids) held.delete(id);
    count();
    await Promise.all(ids.map((id) => callbacks.stopPolling(id)));
    await unlock(client!, ids);
    for (const id of ids) log(`lease given back: ${nameOf(id)} (${reason})`);
  };

  while (!options.signal.aborted) {
    try {
      // A connection that ended fails its next statement: every lease is then lost (below).
      if (client === null) {
        client = await connect(options, fleetKey);
        isNewMember = true;
      }
      const live = await heartbeat(client, options, fleetKey, held.size);
      const superseded = await renewLeases(client, options, held);
      for (const id of superseded) {
        held.delete(id);
        log(`lease lost: ${nameOf(id)} (its epoch was superseded)`);
        callbacks.onLost(id, "its epoch was superseded");
      }
      if (superseded.length > 0) count();
      const plan = planShare({ clusterIds: [...clusters.keys()], held: [...held.keys()], liveReplicas: live, replicaId: options.replicaId });
      const why = `share: ${clusters.size} clusters over ${live.length} replica${live.length === 1 ? "" : "s"}, ${plan.share} for this one`;
      if (plan.toGiveBack.length > 0) await giveBack(plan.toGiveBack, why);
      // A replica that just joined takes nothing in its first round: the others see it meanwhile,
      // and replicas starting together each take their share, not all of it.
      else if (plan.toTake > 0 && !isNewMember) {
        const taken = await takeLeases(client, options, takeOrder([...clusters.keys()], new Set(held.keys()), seed), plan.toTake);
        const reasons = taken.length === 0 ? new Map<number, string>() : await describeTakes(client, taken);
        for (const { clusterId, epoch } of taken) {
          held.set(clusterId, epoch);
          log(`lease taken: ${nameOf(clusterId)} (epoch ${epoch}; ${reasons.get(clusterId)}; ${why})`);
          callbacks.onTaken(clusterId, epoch);
        }
        if (taken.length > 0) count();
      }
      isNewMember = false;
    } catch (error) {
      const reason = `lock connection failed: ${(error as Error).message}`;
      if (held.size > 0) loseAll(reason);
      else log(`fleet: ${reason}`);
      await client?.end().catch(() => undefined);
      client = null;
    }
    await sleep(options.retryMs, options.signal);
  }

  // Shutdown: every poller ends its cycle, then its lease is unlocked for the others to take.
  if (client !== null) {
    try {
      await giveBack([...held.keys()], "shutdown");
      await client.query("update worker_replica set stopped_at = now(), lease_count = 0, heartbeat_at = now() where replica_id = $1", [options.replicaId]);
    } catch (error) {
      loseAll(`lock connection failed during shutdown: ${(error as Error).message}`);
    }
    await client.end().catch(() => undefined);
  } else loseAll("shutdown");
}
