// The GC-pause case inside one demo service: a worker freezes in the middle of its work (inside
// the exclusivity counter: a message, or a run of a scheduled job) and stays frozen until another
// worker has entered the same key, or a limit passes. Whether that happened is read from the
// counter itself (the other worker's entry saw a count above zero), so a stall reports an overlap
// only when a real violation was counted.
import type { ExclusivityEntry } from "@/lib/exclusivity-client";

export type StallPlan = {
  /** The worker stays frozen at least this long... */
  minMs: number;
  /** ...and longer while nobody has entered its key yet, up to this. */
  maxMs: number;
  /** A worker that enters no key in this time (it holds no partition, or does not lead) is not stalled. */
  waitForEntryMs: number;
};

export type StallOutcome = { isOverlap: true; key: string; enteredBy: string; frozenMs: number } | { isOverlap: false; reason: string };

/** What the service does to the worker: freezing drops its connection, waking lets it reconnect. */
export type StallHooks = { onFrozen(): void; onWoken(): void };

export type WorkerStall = {
  /**
   * Every worker calls this inside the counter before processing a message: the armed worker
   * freezes here; another worker entering the frozen key is the overlap.
   */
  atEntry(worker: string, key: string, entry: ExclusivityEntry): Promise<void>;
  /** Arms a stall of `worker` (its next message freezes it); resolves once it woke, or never froze. */
  stall(worker: string, plan: StallPlan, hooks: StallHooks): Promise<StallOutcome>;
};

type Armed = { worker: string; plan: StallPlan; hooks: StallHooks; giveUp: NodeJS.Timeout; settle(outcome: StallOutcome): void };
type Frozen = { worker: string; key: string; enteredBy: string | null };

// How often a frozen worker checks whether it may wake: fine enough for the drill-down's lanes.
const WAKE_CHECK_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function createWorkerStall(): WorkerStall {
  let armed: Armed | null = null;
  let frozen: Frozen | null = null;

  return {
    async atEntry(worker, key, entry) {
      // The frozen worker is still inside `key`, so this entry's count is above zero: a violation.
      if (frozen && frozen.key === key && frozen.worker !== worker && entry.isViolation) frozen.enteredBy ??= worker;
      if (armed?.worker !== worker) return;
      const { plan, hooks, giveUp, settle } = armed;
      armed = null;
      clearTimeout(giveUp);
      const current: Frozen = { worker, key, enteredBy: null };
      frozen = current;
      const frozenAt = Date.now();
      hooks.onFrozen();
      for (;;) {
        const elapsed = Date.now() - frozenAt;
        if (elapsed >= plan.maxMs || (elapsed >= plan.minMs && current.enteredBy)) break;
        await sleep(WAKE_CHECK_MS);
      }
      frozen = null;
      hooks.onWoken();
      const frozenMs = Date.now() - frozenAt;
      settle(
        current.enteredBy
          ? { isOverlap: true, key, enteredBy: current.enteredBy, frozenMs }
          : {
              isOverlap: false,
              reason: `nobody entered ${key} in the ${seconds(frozenMs)} ${worker} was frozen inside it (no other worker reached the key in time)`,
            },
      );
    },

    stall(worker, plan, hooks) {
      if (armed || frozen) return Promise.resolve({ isOverlap: false, reason: "another stall of this service is under way" });
      return new Promise((resolve) => {
        const giveUp = setTimeout(() => {
          if (armed?.worker === worker) armed = null;
          resolve({ isOverlap: false, reason: `${worker} entered no key in ${seconds(plan.waitForEntryMs)} (it holds no partition, or does not lead, now?)` });
        }, plan.waitForEntryMs);
        armed = { worker, plan, hooks, giveUp, settle: resolve };
      });
    },
  };
}
