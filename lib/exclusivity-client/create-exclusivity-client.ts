import { randomUUID } from "node:crypto";

import type { CounterBackend, EntryResult } from "./counter-backend";
import type { CounterEvent, EventContext } from "./counter-event";
import { createCountReporter, type CountReporterStats } from "./count-reporter";
import { createEventReporter, type ReporterStats } from "./event-reporter";
import { createRedisCounter, type RedisLike } from "./redis-counter";

export type ExclusivityClientOptions = {
  /** Counters in Redis (an ioredis client), shared by every worker and pod of the service. */
  redis?: RedisLike;
  /** Or any other backend, e.g. createInProcessCounter(). Exactly one of redis / counter. */
  counter?: CounterBackend;
  /** Namespace of the Redis keys (default "baton:exclusivity:"); the service name follows it. */
  keyPrefix?: string;
  /** How long an entry may stay inside a key before it is forgotten; see RedisCounterOptions.ttlMs. */
  keyTtlMs?: number;
  baton: { url: string; token: string };
  service: string;
  /** This worker: the consumer or pod name. */
  worker: string;
  /**
   * "all" (default) reports every increment as an event. "violations+counts" reports each
   * violation as an event and every other increment only in per-minute counts (one small
   * request per minute): the chart keeps the rate, at a fraction of the rows. "violations"
   * reports violations only: the rate is unknown, and a reporter that stopped working looks the
   * same as a healthy service.
   */
  report?: ReportingMode;
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

export type ReportingMode = "all" | "violations+counts" | "violations";

/** What `fn` learns about its own entry: the counter it saw and whether that is a violation. */
export type ExclusivityEntry = {
  /** The value before this worker's increment, or null when the counter could not be reached. */
  counter: number | null;
  isViolation: boolean;
};

export type ExclusivityStats = ReporterStats & CountReporterStats & { increments: number; violations: number; counterErrors: number };

export type ExclusivityClient = {
  /**
   * Runs fn inside the key: enters (atomically recording this entry and learning who else is
   * inside), reports a violation when another worker was inside, always exits afterwards. The counter is a
   * measurement, not a lock: fn runs even when the counter backend fails (reported to onError).
   */
  withExclusivity<T>(key: string, fn: (entry: ExclusivityEntry) => T | Promise<T>, context?: EventContext): Promise<T>;
  flush(): Promise<void>;
  /** Flushes and stops; the Redis connection stays open (it is the caller's). */
  close(): Promise<void>;
  stats(): ExclusivityStats;
};

const DEFAULT_KEY_PREFIX = "baton:exclusivity:";
const REPORTING_MODES: readonly ReportingMode[] = ["all", "violations+counts", "violations"];

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
  const mode = options.report ?? "all";
  if (!REPORTING_MODES.includes(mode)) throw new Error(`report must be one of ${REPORTING_MODES.join(", ")} (got ${JSON.stringify(mode)})`);
  const keyPrefix = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}${options.service}:`;
  const delivery = {
    url: options.baton.url,
    token: options.baton.token,
    flushIntervalMs: options.flushIntervalMs ?? 1_000,
    maxAttempts: options.maxAttempts ?? 6,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    fetch: options.fetch ?? fetch,
    onError,
  };
  const reporter = createEventReporter({ ...delivery, maxBatch: options.maxBatch ?? 1_000, maxBufferedEvents: options.maxBufferedEvents ?? 100_000 });
  // Created in "violations+counts" mode only: the other modes send no count requests.
  const counts =
    mode === "violations+counts" ? createCountReporter({ ...delivery, clientId: randomUUID(), service: options.service, worker: options.worker }) : null;
  let isClosed = false;
  let increments = 0;
  let violations = 0;
  let counterErrors = 0;

  function counterFailed(operation: string, key: string, error: unknown): void {
    counterErrors += 1;
    onError(new Error(`exclusivity counter ${operation} failed for key "${key}": ${(error as Error).message}`, { cause: error }));
  }

  function toEvent(key: string, entered: EntryResult, observedAt: number, context: EventContext): CounterEvent {
    const event: CounterEvent = {
      id: randomUUID(),
      key,
      counter: entered.othersCount,
      service: options.service,
      worker: options.worker,
      observedAt,
      ...context,
    };
    // Entry ages are on the backend's clock; subtracted from this worker's observedAt they put
    // the entry times on the same clock as the event.
    if (entered.others.length > 0) event.othersInside = entered.others.map((other) => ({ worker: other.worker, enteredAt: observedAt - other.insideForMs }));
    return event;
  }

  return {
    async withExclusivity(key, fn, context = {}) {
      if (isClosed) throw new Error("the exclusivity client is closed");
      const counterKey = keyPrefix + key;
      const entryId = randomUUID();
      let entered: EntryResult | null = null;
      try {
        entered = await counter.enter(counterKey, { entryId, worker: options.worker });
      } catch (error) {
        counterFailed("enter", key, error);
      }
      const seen = entered === null ? null : entered.othersCount;
      const isViolation = seen !== null && seen > 0;
      if (entered !== null) {
        const observedAt = Date.now();
        increments += 1;
        if (isViolation) violations += 1;
        if (mode === "all" || isViolation) reporter.enqueue(toEvent(key, entered, observedAt, context));
        else counts?.record(observedAt, context);
      }
      try {
        return await fn({ counter: seen, isViolation });
      } finally {
        if (entered !== null) {
          try {
            await counter.exit(counterKey, entryId);
          } catch (error) {
            // The entry's expiry removes it; fn's own result or error still stands.
            counterFailed("exit", key, error);
          }
        }
      }
    },
    async flush() {
      await Promise.all([reporter.flush(), counts?.flush()]);
    },
    async close() {
      isClosed = true;
      await Promise.all([reporter.close(), counts?.close()]);
    },
    stats: () => ({
      ...reporter.stats(),
      ...(counts?.stats() ?? { countsPending: 0, countsSent: 0, countsDropped: 0 }),
      increments,
      violations,
      counterErrors,
    }),
  };
}
