// The GC-pause case under a Redis lock: the report-scheduler's leader freezes inside a run of its
// job past the lock's TTL; the lock expires, another worker takes it and enters the job's key
// while the frozen one is still inside (a violation whose drill-down tells the lock's story); the
// frozen worker then wakes, finds its extension fails, finishes late and contends again.
import { sleep } from "@/lib/sleep";
import type { DemoSchedule } from "@/tools/demo/demo-plan";
import type { RunningRedlockScheduler } from "@/tools/demo/redlock-scheduler";

// While no worker leads (an election under way), nobody is frozen.
const NO_LEADER_PAUSE_MS = 2_000;
// After a stall that caught no overlap: the workers settle on a leader again.
const RETRY_PAUSE_MS = 5_000;

/** Stalls the leader, a bounded number of tries; resolves whether an overlap was caught. */
export async function stallLockHolder(
  scheduler: RunningRedlockScheduler,
  schedule: DemoSchedule,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<boolean> {
  const { plan } = scheduler;
  const attempts = schedule.lockStallAttempts;
  for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
    const tag = `lock stall (try ${attempt} of ${attempts})`;
    const leader = scheduler.leader();
    if (leader === null) {
      log(`${tag}: nobody leads ${plan.service} right now`);
      await sleep(NO_LEADER_PAUSE_MS, signal);
      continue;
    }
    log(
      `${tag}: ${leader}, the leader of ${plan.service}, will freeze in its next run of ${plan.jobKey} for ${plan.lockTtlMs / 1000} to ${schedule.lockStallMaxMs / 1000} s, past the TTL of ${plan.lockKey}`,
    );
    // Frozen at least a whole TTL: the lock it last extended has expired by the time it may wake.
    const outcome = await scheduler.stallWorker(leader, {
      minMs: plan.lockTtlMs,
      maxMs: schedule.lockStallMaxMs,
      waitForEntryMs: plan.jobEveryMs + plan.lockTtlMs,
    });
    // Stopped meanwhile (Ctrl-C): the demo's last lines are its stop's own.
    if (signal.aborted) return false;
    if (outcome.isOverlap) {
      log(
        `lock stall: ${plan.lockKey} expired while ${leader} was frozen; ${outcome.enteredBy} took it and entered ${outcome.key} while ${leader} was still inside (${(outcome.frozenMs / 1000).toFixed(1)} s frozen): a violation under the lock`,
      );
      return true;
    }
    log(`${tag} caught no overlap: ${outcome.reason}`);
    await sleep(RETRY_PAUSE_MS, signal);
  }
  if (!signal.aborted) log(`lock stall: no overlap in ${attempts} tries`);
  return false;
}
