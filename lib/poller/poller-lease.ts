import "server-only";

import pg from "pg";
import { sleep } from "@/lib/sleep";

// Exactly one active poller per cluster, across any number of Baton processes. The holder keeps
// a PostgreSQL session advisory lock on a connection of its own (a pooled connection could be
// handed to someone else, or released with the lock still held). When the holder dies, its
// connection closes and the lock is free; a standby that retries takes over. Every takeover
// increments the epoch in poller_lease, and every write checks it (resource-store.ts), so a
// poller that lost its lock but has not noticed yet cannot write.

/** Advisory lock namespace: "BATN". The second key is the cluster id. A fleet's replicas take the same locks (lib/poller/fleet/). */
export const POLLER_LOCK_CLASS = 0x4241544e;

export type PollerLease = {
  epoch: bigint;
  /** Resolves when the lease is lost (lock connection broken). */
  lost: Promise<string>;
  release(): Promise<void>;
};

type Options = {
  databaseUrl: string;
  clusterId: number;
  pollerId: string;
  /** How often a standby tries to take the lock, and the holder checks its connection. */
  retryMs?: number;
  signal: AbortSignal;
  log?: (line: string) => void;
};

async function tryLock(client: pg.Client, clusterId: number): Promise<boolean> {
  const result = await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1::int, $2::int) as locked", [POLLER_LOCK_CLASS, clusterId]);
  return result.rows[0]?.locked === true;
}

async function bumpEpoch(client: pg.Client, clusterId: number, pollerId: string): Promise<bigint> {
  const result = await client.query<{ epoch: string }>(
    `insert into poller_lease (cluster_id, epoch, poller_id, acquired_at, heartbeat_at) values ($1, 1, $2, now(), now())
     on conflict (cluster_id) do update set epoch = poller_lease.epoch + 1, poller_id = excluded.poller_id, acquired_at = now(), heartbeat_at = now()
     returning epoch`,
    [clusterId, pollerId],
  );
  return BigInt(result.rows[0]!.epoch);
}

/**
 * Waits (as a hot standby) until this process holds the cluster's poller lock, then returns
 * the lease with its new epoch. Returns null if `signal` aborts first.
 */
export async function acquirePollerLease(options: Options): Promise<PollerLease | null> {
  const retryMs = options.retryMs ?? 2_000;
  const log = options.log ?? (() => undefined);
  let hasWaited = false;
  while (!options.signal.aborted) {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: `baton-poller ${options.pollerId}` });
    client.on("error", () => undefined); // surfaced by the next query instead
    try {
      await client.connect();
      if (await tryLock(client, options.clusterId)) return holdLease(client, await bumpEpoch(client, options.clusterId, options.pollerId), options, retryMs);
      if (!hasWaited) log(`standing by: another Baton process polls cluster ${options.clusterId}`);
      hasWaited = true;
    } catch (error) {
      log(`poller lock unavailable: ${(error as Error).message}`);
    }
    await client.end().catch(() => undefined);
    await sleep(retryMs, options.signal);
  }
  return null;
}

function holdLease(client: pg.Client, epoch: bigint, options: Options, retryMs: number): PollerLease {
  let isReleased = false;
  let resolveLost: (reason: string) => void = () => undefined;
  const lost = new Promise<string>((resolve) => (resolveLost = resolve));
  const heartbeat = setInterval(() => {
    client
      .query("update poller_lease set heartbeat_at = now() where cluster_id = $1 and epoch = $2", [options.clusterId, epoch.toString()])
      .then((result) => {
        if (result.rowCount === 0) resolveLost(`epoch ${epoch} was superseded`);
      })
      .catch((error: Error) => resolveLost(`lock connection failed: ${error.message}`));
  }, retryMs);
  client.on("end", () => {
    if (!isReleased) resolveLost("lock connection closed");
  });
  client.on("error", (error) => resolveLost(`lock connection failed: ${error.message}`));
  return {
    epoch,
    lost,
    async release() {
      isReleased = true;
      clearInterval(heartbeat);
      // Closing the session releases its advisory locks.
      await client.end().catch(() => undefined);
    },
  };
}
