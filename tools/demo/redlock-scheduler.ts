// The demo's "report-scheduler": the leader election of the Redlock article. Each worker tries
// every few seconds to take the lock with Redlock over the demo's Redis masters (value
// "<worker>:<uuid>", so that Baton's holderPattern names the holder); the leader extends it every
// ttl/3 and runs the job, each run inside the exclusivity counter on the job's key, naming the
// lock it ran under. A stall freezes the leader inside a run (a GC pause: no extension, no exit)
// until the lock expired and another worker took it and entered the same key.
import { randomUUID } from "node:crypto";

import { type CounterBackend, createExclusivityClient, type ExclusivityClient } from "@/lib/exclusivity-client";
import { sleep } from "@/lib/sleep";
import type { LockedJobPlan } from "@/tools/demo/demo-plan";
import { createWorkerStall, type StallOutcome, type StallPlan } from "@/tools/demo/worker-stall";
import { connectRedlock, type Redlock, type RedlockLease } from "@/tools/redis/redlock";

export type RunningRedlockScheduler = {
  plan: LockedJobPlan;
  /** The worker whose lease is valid now, if any. */
  leader(): string | null;
  /** Freezes `worker` in its next run of the job; resolves once it woke (see WorkerStall.stall). */
  stallWorker(worker: string, stall: StallPlan): Promise<StallOutcome>;
  /** Stops every worker, releases the lock if one holds it, flushes their events. */
  close(): Promise<void>;
};

export type RedlockSchedulerDeps = {
  masterUrls: string[];
  /** "<cluster>/<lock key>", as Baton's configuration names the lock: passed with every counter event. */
  lockRef: string;
  counter: CounterBackend;
  counterKeyPrefix: string;
  baton: { url: string; token: string };
  log: (line: string) => void;
};

type SchedulerWorker = {
  name: string;
  redlock: Redlock;
  exclusivity: ExclusivityClient;
  lease: RedlockLease | null;
  nextRenewAtMs: number;
  nextRunAtMs: number;
};

// After an unexpected error in a worker's loop, before it goes on.
const ERROR_PAUSE_MS = 1_000;

const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function startRedlockScheduler(plan: LockedJobPlan, deps: RedlockSchedulerDeps): Promise<RunningRedlockScheduler> {
  const controller = new AbortController();
  const { signal } = controller;
  const stalls = createWorkerStall();
  const renewEveryMs = Math.floor(plan.lockTtlMs / 3);
  const say = (line: string) => deps.log(`${plan.service}: ${line}`);

  const workers = await Promise.all(
    plan.workers.map(
      async (name): Promise<SchedulerWorker> => ({
        name,
        redlock: await connectRedlock(deps.masterUrls, { onError: (error) => say(`${name}: a Redis master: ${error.message}`) }),
        exclusivity: createExclusivityClient({
          counter: deps.counter,
          keyPrefix: deps.counterKeyPrefix,
          baton: deps.baton,
          service: plan.service,
          worker: name,
          flushIntervalMs: 500,
          onError: (error) => say(`${name}: ${error.message}`),
        }),
        lease: null,
        nextRenewAtMs: 0,
        nextRunAtMs: 0,
      }),
    ),
  );

  async function tryToLead(worker: SchedulerWorker): Promise<boolean> {
    const attempt = await worker.redlock.acquire(plan.lockKey, `${worker.name}:${randomUUID()}`, plan.lockTtlMs);
    if (attempt.lease === null) return false;
    worker.lease = attempt.lease;
    worker.nextRenewAtMs = Date.now() + renewEveryMs;
    worker.nextRunAtMs = Date.now();
    say(`${worker.name} leads: it took ${plan.lockKey} on ${attempt.accepted} of ${attempt.masters} masters`);
    return true;
  }

  async function renew(worker: SchedulerWorker): Promise<void> {
    const lease = worker.lease!;
    const overdueMs = Date.now() - lease.validUntilMs;
    const attempt = await worker.redlock.extend(lease);
    if (attempt.lease !== null) {
      worker.lease = attempt.lease;
      worker.nextRenewAtMs = Date.now() + renewEveryMs;
      return;
    }
    worker.lease = null;
    const why = overdueMs >= 0 ? `its lease ran out ${seconds(overdueMs)} ago` : `only ${attempt.accepted} of ${attempt.masters} masters still held its value`;
    say(`${worker.name} lost ${plan.lockKey}: its extension failed (${why})`);
  }

  async function runJob(worker: SchedulerWorker): Promise<void> {
    await worker.exclusivity.withExclusivity(
      plan.jobKey,
      async (entry) => {
        await stalls.atEntry(worker.name, plan.jobKey, entry);
        // A renewal that fell due meanwhile (after a pause) runs before the rest of the work, as
        // an overdue timer does in a process that resumes.
        if (worker.lease !== null && Date.now() >= worker.nextRenewAtMs) await renew(worker);
        await sleep(between(plan.jobMs), signal);
        if (worker.lease === null) say(`${worker.name} finished its run of ${plan.jobKey} without the lock, and goes back to contending`);
      },
      { lock: deps.lockRef },
    );
    worker.nextRunAtMs = Date.now() + plan.jobEveryMs;
  }

  /** One worker, one thread: contend, or renew and run the job, one step at a time. */
  async function runWorker(worker: SchedulerWorker): Promise<void> {
    // Pods start at different moments.
    await sleep(Math.random() * plan.tryEveryMs, signal);
    while (!signal.aborted) {
      try {
        if (worker.lease === null) {
          if (!(await tryToLead(worker))) await sleep(plan.tryEveryMs * (0.8 + Math.random() * 0.4), signal);
          continue;
        }
        const now = Date.now();
        if (now >= worker.nextRenewAtMs) await renew(worker);
        else if (now >= worker.nextRunAtMs) await runJob(worker);
        else await sleep(Math.min(worker.nextRenewAtMs, worker.nextRunAtMs) - now, signal);
      } catch (error) {
        if (signal.aborted) return;
        say(`${worker.name}: ${(error as Error).message}`);
        await sleep(ERROR_PAUSE_MS, signal);
      }
    }
  }

  for (const worker of workers) void runWorker(worker);

  const find = (name: string) => {
    const worker = workers.find((w) => w.name === name);
    if (!worker) throw new Error(`${plan.service} has no worker ${name}`);
    return worker;
  };

  return {
    plan,
    leader: () => workers.find((w) => w.lease !== null && w.lease.validUntilMs > Date.now())?.name ?? null,
    stallWorker(name, stall) {
      const worker = find(name);
      return stalls.stall(name, stall, {
        // Nothing to stop: the frozen run holds the worker's only thread, so it neither extends
        // the lock nor leaves the key until it wakes.
        onFrozen: () => {
          const left = worker.lease === null ? "" : `; its lease of ${plan.lockKey} runs out in ${seconds(worker.lease.validUntilMs - Date.now())}`;
          say(`${name} froze inside ${plan.jobKey} (a GC pause): it stops extending the lock${left}`);
        },
        onWoken: () => say(`${name} wakes, still inside ${plan.jobKey}`),
      });
    },
    async close() {
      // A worker frozen by a stall wakes on its own; the demo's exit does not wait for it.
      controller.abort();
      for (const worker of workers) {
        if (worker.lease !== null)
          await worker.redlock.release(worker.lease).catch((error: unknown) => say(`${worker.name}: release failed: ${(error as Error).message}`));
        await worker.exclusivity.close().catch((error: unknown) => say(`${worker.name}: ${(error as Error).message}`));
        await worker.redlock.close();
      }
    },
  };
}
