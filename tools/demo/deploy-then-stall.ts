// The demo's rollout-and-stall cycle for one service, as a script rather than independent timers:
// a rolling deployment, then the wait until its window (finish + grace, in the whole minutes Baton
// classifies by) has closed, then a stall, then the caller's step after it (the report-scheduler's
// lock stall). One step after the other, so the rollout's overlaps always count inside a
// deployment and the stalls' always outside, however slow the machine.
import { sleep } from "@/lib/sleep";
import { rollingDeployment, type ScenarioDeps, stallLeader } from "@/tools/demo/demo-scenarios";

// However late a cycle ends, the next rollout waits at least this long after it.
const MIN_PAUSE_BETWEEN_CYCLES_MS = 10_000;

/**
 * Starts the cycle (first rollout after schedule.firstDeployAfterMs); `afterCycle` runs at the end
 * of each cycle, also of one that failed. Returns its stop.
 */
export function startDeployThenStall(deps: ScenarioDeps, serviceName: string, afterCycle?: (signal: AbortSignal) => Promise<void>): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  const { schedule, log } = deps;

  async function cycle(): Promise<void> {
    const { windowEndMs } = await rollingDeployment(deps, serviceName);
    if (signal.aborted) return;
    const stallAtMs = windowEndMs + schedule.stallAfterWindowMs;
    log(`stall: ${serviceName} stalls at ${new Date(stallAtMs).toISOString()}, after the deployment window closed`);
    await sleep(stallAtMs - Date.now(), signal);
    if (!signal.aborted) await stallLeader(deps, serviceName, signal);
  }

  void (async () => {
    await sleep(schedule.firstDeployAfterMs, signal);
    while (!signal.aborted) {
      const startedAtMs = Date.now();
      // A failed step (e.g. Baton refused the deployment) skips the rest of this cycle: a stall
      // after a rollout whose finish was never recorded would land inside its open window.
      // A step the stop cut short (Baton or a worker already gone) is no failure to report.
      const report = (error: unknown) => signal.aborted || log(`scenario failed: ${(error as Error).message}`);
      await cycle().catch(report);
      if (afterCycle && !signal.aborted) await afterCycle(signal).catch(report);
      await sleep(Math.max(startedAtMs + schedule.deployEveryMs - Date.now(), MIN_PAUSE_BETWEEN_CYCLES_MS), signal);
    }
  })();
  return () => controller.abort();
}
