// A request budget per cluster: at most `requestsPerSecond` starts per second (token bucket,
// burst of one second's worth) and at most `maxConcurrency` requests in flight.

export type RateLimiter = {
  /** Runs `task` when the budget allows; counts it. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Requests started since the last call. */
  takeRequestCount(): number;
};

export function createRateLimiter(options: { requestsPerSecond: number; maxConcurrency: number; now?: () => number }): RateLimiter {
  const now = options.now ?? (() => performance.now());
  const capacity = Math.max(1, options.requestsPerSecond);
  let tokens = capacity;
  let refilledAt = now();
  let inFlight = 0;
  let started = 0;
  const waiting: (() => void)[] = [];
  let timer: NodeJS.Timeout | null = null;

  function refill(): void {
    const at = now();
    tokens = Math.min(capacity, tokens + ((at - refilledAt) / 1000) * options.requestsPerSecond);
    refilledAt = at;
  }

  function pump(): void {
    refill();
    while (waiting.length > 0 && inFlight < options.maxConcurrency && tokens >= 1) {
      tokens -= 1;
      inFlight += 1;
      started += 1;
      waiting.shift()!();
    }
    if (waiting.length > 0 && inFlight < options.maxConcurrency && timer === null) {
      const waitMs = Math.max(1, ((1 - tokens) / options.requestsPerSecond) * 1000);
      timer = setTimeout(() => {
        timer = null;
        pump();
      }, waitMs);
    }
  }

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
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
