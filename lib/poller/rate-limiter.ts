// A request budget per cluster: at most `requestsPerSecond` starts per second (token bucket,
// burst of one second's worth) and at most `maxConcurrency` requests in flight. A task may cost
// more than one (a Redis pipeline of N commands costs N).

export type RateLimiter = {
  /**
   * Runs `task` once the budget has `cost` (default 1) to spend on it; counts it. An urgent task
   * (a re-poll a change signal asked for) starts before every waiting task that is not urgent.
   */
  run<T>(task: () => Promise<T>, cost?: number, options?: { isUrgent?: boolean }): Promise<T>;
  /** What was spent on tasks started since the last call (requests, or commands). */
  takeRequestCount(): number;
};

/**
 * A task heavier than the whole bucket (one pipeline reading 10,000 locks) still runs once the
 * bucket is full, and leaves it in debt: the tasks after it wait until the debt is paid, so the
 * average holds. Tasks start in arrival order, urgent ones first: the budget is the same for
 * both, only the order changes.
 */
export function createRateLimiter(options: { requestsPerSecond: number; maxConcurrency: number; now?: () => number }): RateLimiter {
  const now = options.now ?? (() => performance.now());
  const rate = Math.max(1, options.requestsPerSecond);
  let tokens = rate;
  let refilledAt = now();
  let inFlight = 0;
  let started = 0;
  const waiting: { cost: number; isUrgent: boolean; start: () => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  function refill(): void {
    const at = now();
    tokens = Math.min(rate, tokens + ((at - refilledAt) / 1000) * rate);
    refilledAt = at;
  }

  function pump(): void {
    refill();
    while (waiting.length > 0 && inFlight < options.maxConcurrency) {
      const next = waiting[0]!;
      if (tokens < Math.min(next.cost, rate)) break;
      waiting.shift();
      tokens -= next.cost;
      inFlight += 1;
      started += next.cost;
      next.start();
    }
    if (waiting.length > 0 && inFlight < options.maxConcurrency && timer === null) {
      const needed = Math.min(waiting[0]!.cost, rate) - tokens;
      timer = setTimeout(
        () => {
          timer = null;
          pump();
        },
        Math.max(1, (needed / rate) * 1000),
      );
    }
  }

  return {
    async run<T>(task: () => Promise<T>, cost = 1, runOptions: { isUrgent?: boolean } = {}): Promise<T> {
      await new Promise<void>((resolve) => {
        const entry = { cost: Math.max(1, cost), isUrgent: runOptions.isUrgent === true, start: resolve };
        if (!entry.isUrgent) waiting.push(entry);
        else {
          // Behind the urgent ones already waiting, ahead of the rest.
          const firstRegular = waiting.findIndex((w) => !w.isUrgent);
          waiting.splice(firstRegular < 0 ? waiting.length : firstRegular, 0, entry);
        }
        pump();
      });
      try {
        return await task();
      } finally {
        inFlight -= 1;
        pump();
      }
    },
    takeRequestCount() {
      const count = started;
      started = 0;
      return count;
    },
  };
}
