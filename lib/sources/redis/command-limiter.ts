// A commands-per-second budget for Redis: the cluster's request budget, where a pipeline of N
// commands costs N.
import { createRateLimiter } from "@/lib/poller/rate-limiter";

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

/** The cluster's token bucket (lib/poller/rate-limiter.ts) spent in commands: a pipeline of N costs N. */
export function createCommandLimiter(options: { commandsPerSecond: number; maxConcurrency?: number; now?: () => number }): CommandLimiter {
  const limiter = createRateLimiter({ requestsPerSecond: options.commandsPerSecond, maxConcurrency: options.maxConcurrency ?? 8, now: options.now });
  return { isCommandAware: true, run: limiter.run, takeRequestCount: limiter.takeRequestCount };
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
