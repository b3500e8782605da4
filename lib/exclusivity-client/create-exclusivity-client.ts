import { randomUUID } from "node:crypto";

import type { CounterBackend } from "./counter-backend";
import type { CounterEvent, EventContext } from "./counter-event";
import { createEventReporter, type ReporterStats } from "./event-reporter";
import { createRedisCounter, type RedisLike } from "./redis-counter";

export type ExclusivityClientOptions = {
  /** Counters in Redis (an ioredis client), shared by every worker and pod of the service. */
  redis?: RedisLike;
  /** Or any other backend, e.g. createInProcessCounter(). Exactly one of redis / counter. */
  counter?: CounterBackend;
  /** Namespace of the Redis keys (default "baton:exclusivity:"); the service name follows it. */
  keyPrefix?: string;
  /** Expiry of a Redis counter key; see RedisCounterOptions.ttlMs for the trade-off. */
  keyTtlMs?: number;
  baton: { url: string; token: string };
  service: string;
  /** This worker: the consumer or pod name. */
  worker: string;
  /**
   * "all" (default) reports every increment; "violations" only those that saw counter > 0.
   * Baton charts violations against events: with "violations" the rate is unknown, and a
   * reporter that stopped working looks the same as a healthy service.
   */
  report?: "all" | "violations";
  /** Longest wait before buffered events are sent (default 1000 ms). */
  flushIntervalMs?: number;
  /** Events per request (default 1000; Baton takes up to 10,000 by default). */
  maxBatch?: number;
  /** Events kept while Baton is unreachable (default 100,000); beyond that the oldest go. */
  maxBufferedEvents?: number;
  /** Tries per batch (default 6, about 8 s of backoff in all). */
  maxAttempts?: number;
  requestTimeoutMs?: number;
  /** Where problems go (counter or Baton unreachable, rejected events). Default: console.error. */
  onError?: (error: Error) => void;
  fetch?: typeof fetch;
};

/** What `fn` learns about its own entry: the counter it saw and whether that is a violation. */
export type ExclusivityEntry = {
  /** The value before this worker's increment, or null when the counter could not be reached. */
  counter: number | null;
  isViolation: boolean;
};

export type ExclusivityStats = ReporterStats & { increments: number; violations: number; counterErrors: number };

export type ExclusivityClient = {
  /**
   * Runs fn inside the key's counter: increments (atomically, returning the new value), reports
   * a violation when another worker was inside, always decrements afterwards. The counter is a
   * measurement, not a lock: fn runs even when the counter backend fails (reported to onError).
   */
  withExclusivity<T>(key: string, fn: (entry: ExclusivityEntry) => T | Promise<T>, context?: EventContext): Promise<T>;
  flush(): Promise<void>;
  /** Flushes and stops; the Redis connection stays open (it is the caller's). */
  close(): Promise<void>;
  stats(): ExclusivityStats;
};

const DEFAULT_KEY_PREFIX = "baton:exclusivity:";

function defaultOnError(error: Error): void {
  console.error(`[baton-exclusivity] ${error.message}`);
}

/** The caller's onError, kept from throwing into the reporter or into withExclusivity. */
function guardOnError(onError: (error: Error) => void): (error: Error) => void {
  return (error) => {
    try {
      onError(error);
    } catch (handlerError) {
      console.error("[baton-exclusivity] onError threw while handling:", error, handlerError);
    }
  };
}

function resolveCounter(options: ExclusivityClientOptions): CounterBackend {
  if (options.redis && options.counter) throw new Error("pass redis or counter, not both");
  if (options.counter) return options.counter;
  if (options.redis) return createRedisCounter(options.redis, { ttlMs: options.keyTtlMs });
  throw new Error("pass redis (an ioredis client) or counter (e.g. createInProcessCounter())");
}

export function createExclusivityClient(options: ExclusivityClientOptions): ExclusivityClient {
  const counter = resolveCounter(options);
  const onError = guardOnError(options.onError ?? defaultOnError);
  const isReportingAll = (options.report ?? "all") === "all";
  const keyPrefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}${options.service}:`;
  const reporter = createEventReporter({
    url: options.baton.url,
    token: options.baton.token,
    maxBatch: options.maxBatch ?? 1_000,
    flushIntervalMs: options.flushIntervalMs ?? 1_000,
    maxBufferedEvents: options.maxBufferedEvents ?? 100_000,
    maxAttempts: options.maxAttempts ?? 6,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    fetch: options.fetch ?? fetch,
    onError,
  });
  let isClosed = false;
  let increments = 0;
  let violations = 0;
  let counterErrors = 0;

  function counterFailed(operation: string, key: string, error: unknown): void {
    counterErrors += 1;
    onError(new Error(`exclusivity counter ${operation} failed for key "${key}": ${(error as Error).message}`, { cause: error }));
  }

  function toEvent(key: string, seen: number, context: EventContext): CounterEvent {
    return { id: randomUUID(), key, counter: seen, service: options.service, worker: options.worker, observedAt: Date.now(), ...context };
  }

  return {
    async withExclusivity(key, fn, context = {}) {
      if (isClosed) throw new Error("the exclusivity client is closed");
      const counterKey = keyPrefix + key;
      let value: number | null = null;
      try {
        value = await counter.increment(counterKey);
      } catch (error) {
        counterFailed("increment", key, error);
      }
      const seen = value === null ? null : value - 1;
      const isViolation = seen !== null && seen > 0;
      if (seen !== null) {
        increments += 1;
        if (isViolation) violations += 1;
        if (isReportingAll || isViolation) reporter.enqueue(toEvent(key, seen, context));
      }
      try {
        return await fn({ counter: seen, isViolation });
      } finally {
        if (value !== null) {
          try {
            await counter.decrement(counterKey);
          } catch (error) {
            // The key's expiry repairs the count; fn's own result or error still stands.
            counterFailed("decrement", key, error);
          }
        }
      }
    },
    flush: () => reporter.flush(),
    async close() {
      isClosed = true;
      await reporter.close();
    },
    stats: () => ({ ...reporter.stats(), increments, violations, counterErrors }),
  };
}
