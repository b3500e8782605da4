import "server-only";

import pg from "pg";

import { sleep } from "@/lib/sleep";

// One alert evaluator across any number of Baton processes, as with the pollers
// (lib/poller/poller-lease.ts): the holder keeps a PostgreSQL session advisory lock on a
// connection of its own; a standby takes over when the holder's connection closes; each
// takeover increments the epoch in alert_evaluator_lease, which every evaluation's transaction
// checks (alert-store.ts), so a deposed evaluator that has not noticed yet cannot write.

/** Advisory lock namespace: "BATA" (the pollers use "BATN"). */
const LOCK_CLASS = 0x42415441;
const LEASE_ID = 1;

export type EvaluatorLease = {
  epoch: bigint;
  /** Resolves when the lease is lost (lock connection broken, or superseded). */
  lost: Promise<string>;
  release(): Promise<void>;
};

type Options = { databaseUrl: string; evaluatorId: string; retryMs?: number; signal: AbortSignal; log?: (line: string) => void };

/** Waits (as a standby) until this process holds the evaluator lock; null if `signal` aborts first. */
export async function acquireEvaluatorLease(options: Options): Promise<EvaluatorLease | null> {
  const retryMs = options.retryMs ?? 2_000;
  const log = options.log ?? (() => undefined);
  let hasWaited = false;
  while (!options.signal.aborted) {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: `baton-alerts ${options.evaluatorId}` });
    client.on("error", () => undefined); // surfaced by the next query instead
    try {
      await client.connect();
      const locked = await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1::int, $2::int) as locked", [LOCK_CLASS, LEASE_ID]);
      if (locked.rows[0]?.locked === true) {
        const bumped = await client.query<{ epoch: string }>(
          `insert into alert_evaluator_lease (id, epoch, evaluator_id, acquired_at, heartbeat_at) values ($1, 1, $2, now(), now())
           on conflict (id) do update set epoch = alert_evaluator_lease.epoch + 1, evaluator_id = excluded.evaluator_id, acquired_at = now(), heartbeat_at = now()
           returning epoch`,
          [LEASE_ID, options.evaluatorId],
        );
        return holdLease(client, BigInt(bumped.rows[0]!.epoch), retryMs);
      }
      if (!hasWaited) log("alerts: standing by: another Baton process evaluates the alert rules");
      hasWaited = true;
    } catch (error) {
      log(`alerts: evaluator lock unavailable: ${(error as Error).message}`);
    }
    await client.end().catch(() => undefined);
    await sleep(retryMs, options.signal);
  }
  return null;
}

function holdLease(client: pg.Client, epoch: bigint, retryMs: number): EvaluatorLease {
  let isReleased = false;
  let resolveLost: (reason: string) => void = () => undefined;
  const lost = new Promise<string>((resolve) => (resolveLost = resolve));
  const heartbeat = setInterval(() => {
    client
      .query("update alert_evaluator_lease set heartbeat_at = now() where id = $1 and epoch = $2", [LEASE_ID, epoch.toString()])
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
      // Closing the session releases its advisory lock.
      await client.end().catch(() => undefined);
    },
  };
}

export const EVALUATOR_LEASE_ID = LEASE_ID;
