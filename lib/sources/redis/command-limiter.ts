// A commands-per-second budget for Redis. Shaped like lib/poller/rate-limiter.ts's RateLimiter
// (`run(task)`, `takeRequestCount()`), with a weight: a pipeline of N commands costs N.

/** What lib/poller/rate-limiter.ts's RateLimiter offers; any limiter of that shape fits. */
export type RequestLimiter = {
  run<T>(task: () => Promise<T>): Promise<T>;
  takeRequestCount(): number;
};

export type CommandLimiter = {
  /** Runs `task` once the budget has `commands` to spend on it; counts them. */
  run<T>(task: () => Promise<T>, commands?: number): Promise<T>;
  /** Commands started since the last call. */
  takeRequestCount(): number;
  readonly isCommandAware: true;
};

/**
 * A token bucket of `commandsPerSecond`, burst of one second's worth. A task heavier than the
 * whole bucket (one pipeline reading 10,000 locks) still runs once the bucket is full, and
 * leaves it in debt: the commands after it wait until the debt is paid, so the average holds.
 * Tasks start in arrival order, at most `maxConcurrency` at a time.
 */
export function createCommandLimiter(options: { commandsPerSecond: number; maxConcurrency?: number; now?: () => number }): CommandLimiter {
  const now = options.now ?? (() => performance.now());
  const rate = Math.max(1, options.commandsPerSecond);
  const maxConcurrency = options.maxConcurrency ?? 8;
  let tokens = rate;
  let refilledAt = now();
  let inFlight = 0;
  let started = 0;
  const waiting: { commands: number; start: () => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  function refill(): void {
    const at = now();
    tokens = Math.min(rate, tokens + ((at - refilledAt) / 1000) * rate);
    refilledAt = at;
  }

  function pump(): void {
    refill();
    while (waiting.length > 0 && inFlight < maxConcurrency) {
      const next = waiting[0]!;
      if (tokens < Math.min(next.commands, rate)) break;
      waiting.shift();
      tokens -= next.commands;
      inFlight += 1;
      started += next.commands;
      next.start();
    }
    if (waiting.length > 0 && inFlight < maxConcurrency && timer === null) {
      const needed = Math.min(waiting[0]!.commands, rate) - tokens;
      timer = setTimeout(() => {
        timer = null;
        pump();
      }, Math.max(1, (needed / rate) * 1000));
    }
  }

  return {
    isCommandAware: true,
    async run<T>(task: () => Promise<T>, commands = 1): Promise<T> {
      await new Promise<void>((resolve) => {
        waiting.push({ commands: Math.max(1, commands), start: resolve });
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

/**
 * Makes any RequestLimiter count commands: a task of N commands first spends N - 1 empty
 * requests of the limiter, then runs as the N-th. Lets the poller hand over the limiter it
 * already has without changing it.
 */
export function toCommandLimiter(limiter: RequestLimiter | CommandLimiter): CommandLimiter {
  if ("isCommandAware" in limiter && limiter.isCommandAware) return limiter;
  return {
    isCommandAware: true,
    async run<T>(task: () => Promise<T>, commands = 1): Promise<T> {
      for (let spent = 1; spent < commands; spent++) await limiter.run(async () => undefined);
      return limiter.run(task);
    },
    takeRequestCount: () => limiter.takeRequestCount(),
  };
}
