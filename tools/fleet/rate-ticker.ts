/**
 * Calls `tick` `ratePerSecond` times a second on average, without drift: each wake-up sends
 * whatever is due since the start, so slow sends are caught up rather than lost.
 */

/** How many ticks are due after `elapsedMs`, given `done` already happened. */
export function countDueTicks(elapsedMs: number, ratePerSecond: number, done: number): number {
  return Math.max(0, Math.floor((elapsedMs * ratePerSecond) / 1000) - done);
}

export interface RateTicker {
  /** Stops ticking and waits for the tick in progress. */
  stop(): Promise<void>;
}

// Wake-ups at most every 10 ms and at least every 100 ms.
const MIN_WAKE_MS = 10;
const MAX_WAKE_MS = 100;

export function startRateTicker(ratePerSecond: number, tick: () => Promise<void>, onError: (error: unknown) => void): RateTicker {
  if (!(ratePerSecond > 0)) throw new Error(`ratePerSecond must be positive, got ${ratePerSecond}`);
  const started = performance.now();
  const wakeMs = Math.min(MAX_WAKE_MS, Math.max(MIN_WAKE_MS, 1000 / ratePerSecond));
  let done = 0;
  let isStopped = false;
  let inFlight: Promise<void> = Promise.resolve();

  const wake = async () => {
    const due = countDueTicks(performance.now() - started, ratePerSecond, done);
    for (let i = 0; i < due && !isStopped; i++) {
      done += 1;
      try {
        await tick();
      } catch (error) {
        onError(error);
      }
    }
  };

  const timer = setInterval(() => {
    // One wake-up at a time: the next one catches up on whatever the slow one left.
    inFlight = inFlight.then(wake);
  }, wakeMs);

  return {
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}
