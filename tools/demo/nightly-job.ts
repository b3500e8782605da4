// The demo's "ledger-close": a nightly job as Spring shops run it. Two nodes of one service run
// the same scheduled job, and ShedLock (a row of the service's own PostgreSQL table, written by
// the real library: tools/db-lock-contender) lets one of them run it at a time. On each tick every
// node tries the lock; the one that takes it runs the job, then unlocks. The service has no
// exclusivity counter: Baton sees its double runs in the table alone.
//
// The overrun: a run that stalls past its lockAtMostFor (a GC pause, a slow statement). The row
// expires while the job still runs, the other node takes it on its next tick and starts the job
// again; the stalled run then ends and ShedLock's unlock (an UPDATE by name alone) lands on the
// other node's hold, and the other node's own unlock follows: one hold released twice, which
// Baton records as a two-hands violation. The late unlock waits a few of Baton's polls after the
// other node took the row, and the other node's run lasts a few more: Baton reads the two
// releases apart (within one poll they look like one).
import pg from "pg";

import { sleep } from "@/lib/sleep";
import type { NightlyJobPlan } from "@/tools/demo/demo-plan";
import { type DbLockContender, startDbLockContender } from "@/tools/db-lock-contender/db-lock-contender";

export type NightlyOverrunOutcome = { isDoubleRun: true; stalledNode: string; secondNode: string; stalledMs: number } | { isDoubleRun: false; reason: string };

export type RunningNightlyJob = {
  plan: NightlyJobPlan;
  /** The next run stalls past lockAtMostFor until another node started the job; resolves once the stalled run ended. */
  overrunNextRun(signal: AbortSignal): Promise<NightlyOverrunOutcome>;
  /** Stops every node's ticks, lets a run under way end and unlock, then stops the JVMs. */
  close(): Promise<void>;
};

type JobNode = { name: string; contender: DbLockContender; running: Promise<void> };

type Settable<T> = { promise: Promise<T>; resolve(value: T): void };

function settable<T>(): Settable<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

type Overrun = {
  stalledNode: string | null;
  /** Resolves with the node that started the job while the stalled run still ran. */
  takenBy: Settable<string>;
  done: Settable<NightlyOverrunOutcome>;
};

const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);

/** Creates the service's database on the demo's PostgreSQL and ShedLock's table in it (as ShedLock's README gives it); resolves with the database's url. */
export async function prepareNightlyJobDatabase(serverUrl: string, plan: NightlyJobPlan): Promise<string> {
  const url = new URL(serverUrl);
  url.pathname = `/${plan.database}`;
  const server = new pg.Client({ connectionString: serverUrl });
  await server.connect();
  try {
    const exists = await server.query("select 1 from pg_database where datname = $1", [plan.database]);
    if (exists.rowCount === 0) await server.query(`create database "${plan.database}"`);
  } finally {
    await server.end();
  }
  const database = new pg.Client({ connectionString: url.toString() });
  await database.connect();
  try {
    await database.query(
      `create table if not exists ${plan.table} (name varchar(64) not null, lock_until timestamp not null, locked_at timestamp not null, locked_by varchar(255) not null, primary key (name))`,
    );
  } finally {
    await database.end();
  }
  return url.toString();
}

export async function startNightlyJob(
  plan: NightlyJobPlan,
  deps: { databaseUrl: string; pollIntervalMs: number; log: (line: string) => void },
): Promise<RunningNightlyJob> {
  const controller = new AbortController();
  const { signal } = controller;
  const say = (line: string) => deps.log(`${plan.service}: ${line}`);
  let overrun: Overrun | null = null;
  // One after the other: the first builds the JVM project with Maven, the next reuses it.
  const contenders: DbLockContender[] = [];
  for (const name of plan.nodes) contenders.push(await startDbLockContender(deps.databaseUrl, { shedlockTable: plan.table, lockedBy: name, log: say }));

  /** One run of the job on `node`, the lock taken: its normal length, or the overrun's stall. */
  async function runJob(node: string): Promise<void> {
    const scripted = overrun;
    if (scripted !== null && scripted.stalledNode === null) {
      scripted.stalledNode = node;
      await stallPastLockAtMostFor(node, scripted);
      return;
    }
    if (scripted !== null && scripted.stalledNode !== node) scripted.takenBy.resolve(node);
    await sleep(between(plan.runMs), signal);
  }

  async function stallPastLockAtMostFor(node: string, scripted: Overrun): Promise<void> {
    const startedMs = Date.now();
    say(`${node}'s run of ${plan.lockName} stalls past its lockAtMostFor (${plan.lockAtMostForMs / 1000} s)`);
    const bound = sleep(plan.lockAtMostForMs + 3 * plan.tickEveryMs, signal).then(() => null);
    const second = await Promise.race([scripted.takenBy.promise, bound]);
    if (second === null) {
      scripted.done.resolve({ isDoubleRun: false, reason: signal.aborted ? "stopped" : `no other node took ${plan.lockName} while ${node} stalled` });
      return;
    }
    // Baton reads the second node's hold before the late unlock moves its lock_until back, and
    // the second node's own unlock (its run lasts runMs) a few polls after that.
    await sleep(3 * deps.pollIntervalMs, signal);
    scripted.done.resolve({ isDoubleRun: true, stalledNode: node, secondNode: second, stalledMs: Date.now() - startedMs });
  }

  async function tick(node: JobNode): Promise<void> {
    while (!signal.aborted) {
      await sleep(between([plan.tickEveryMs * 0.8, plan.tickEveryMs * 1.2]), signal);
      if (signal.aborted) return;
      try {
        if (!(await node.contender.acquire("shedlock", plan.lockName, plan.lockAtMostForMs))) continue;
        await runJob(node.name);
        await node.contender.release("shedlock", plan.lockName);
      } catch (error) {
        if (!signal.aborted) say(`${node.name}: ${(error as Error).message}`);
      }
    }
  }

  const nodes: JobNode[] = plan.nodes.map((name, i) => ({ name, contender: contenders[i]!, running: Promise.resolve() }));
  for (const node of nodes) node.running = tick(node);
  return {
    plan,
    async overrunNextRun(abort) {
      if (overrun !== null) return { isDoubleRun: false, reason: "an overrun is already under way" };
      const scripted: Overrun = { stalledNode: null, takenBy: settable<string>(), done: settable<NightlyOverrunOutcome>() };
      overrun = scripted;
      const onAbort = () => scripted.done.resolve({ isDoubleRun: false, reason: "stopped" });
      abort.addEventListener("abort", onAbort, { once: true });
      try {
        return await scripted.done.promise;
      } finally {
        abort.removeEventListener("abort", onAbort);
        overrun = null;
      }
    },
    async close() {
      controller.abort();
      await Promise.all(nodes.map((node) => node.running));
      await Promise.all(contenders.map((contender) => contender.close().catch(() => contender.kill())));
    },
  };
}

/** The scenario on the demo's schedule: an overrun, tried up to `attempts` times until one staged a double run. */
export async function overrunNightlyJob(job: RunningNightlyJob, attempts: number, log: (line: string) => void, signal: AbortSignal): Promise<void> {
  const { plan } = job;
  for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
    log(`${plan.service}: the next run of ${plan.lockName} will stall past its lockAtMostFor (try ${attempt} of ${attempts})`);
    const outcome = await job.overrunNextRun(signal);
    if (signal.aborted) return;
    if (outcome.isDoubleRun) {
      log(
        `${plan.service}: ${outcome.secondNode} started ${plan.lockName} while ${outcome.stalledNode} still ran it (${(outcome.stalledMs / 1000).toFixed(1)} s stalled); ${outcome.stalledNode}'s late unlock lands on ${outcome.secondNode}'s hold: a double run in ShedLock's table`,
      );
      return;
    }
    log(`${plan.service}: the overrun (try ${attempt} of ${attempts}) staged no double run: ${outcome.reason}`);
  }
}
