import { randomBytes, randomUUID } from "node:crypto";

import type { CounterBackend, OtherInside } from "./counter-backend";
import type { CounterEvent, EventContext } from "./counter-event";
import { type OperationQueue, operationQueueOf } from "./counter-operation";
import { createCountReporter, type CountReporterStats } from "./count-reporter";
import { createEventReporter, type ReporterStats } from "./event-reporter";
import { type ExclusivityEntry, ExclusivitySection, type SectionHost } from "./exclusivity-section";
import { createRedisCounter, type RedisLike } from "./redis-counter";

export type { ExclusivityEntry } from "./exclusivity-section";

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

export type ExclusivityStats = ReporterStats & CountReporterStats & { increments: number; violations: number; counterErrors: number };

export type ExclusivityClient = {
  /**
   * Runs fn inside the key: enters (atomically recording this entry and learning who else is
   * inside), reports a violation when another worker was inside, always exits afterwards. The counter is a
   * measurement, not a lock: fn runs even when the counter backend fails (reported to onError).
   * Settles with fn's result or error once the exit is answered, so a worker that hands the key on
   * after that is never seen as still inside.
   */
  withExclusivity<T>(key: string, fn: (entry: ExclusivityEntry) => T | Promise<T>, context?: EventContext): Promise<T>;
  flush(): Promise<void>;
  /**
   * Refuses new work, waits (at most requestTimeoutMs) for the entries already sent to be answered
   * so that their increments are reported, then flushes and stops. Work still running finishes:
   * its exits still reach the counter. The Redis connection stays open (it is the caller's).
   */
  close(): Promise<void>;
  stats(): ExclusivityStats;
};

const DEFAULT_KEY_PREFIX = "baton:exclusivity:";
const NO_CONTEXT: EventContext = Object.freeze({});
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function resolveCounter(options: ExclusivityClientOptions): CounterBackend {
  if (options.redis && options.counter) throw new Error("pass redis or counter, not both");
  if (options.counter) return options.counter;
  if (options.redis) return createRedisCounter(options.redis, { ttlMs: options.keyTtlMs });
  throw new Error("pass redis (an ioredis client) or counter (e.g. createInProcessCounter())");
}

export function createExclusivityClient(options: ExclusivityClientOptions): ExclusivityClient {
  const queue: OperationQueue = operationQueueOf(resolveCounter(options));
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
  // Entry ids: this client's random 96-bit prefix and a sequence number, unique across clients
  // and cheaper than a UUID each.
  const entryIdPrefix = `${randomBytes(12).toString("base64url")}.`;
  let entrySequence = 0;
  let isClosed = false;
  let isReportingClosed = false;
  let closing: Promise<void> | null = null;
  let increments = 0;
  let violations = 0;
  let counterErrors = 0;
  // Enters issued and not yet answered (or failed): close() waits for them.
  let entersInFlight = 0;
  let onEntersAnswered: (() => void) | null = null;

  function enterAnswered(): void {
    entersInFlight -= 1;
    if (entersInFlight === 0 && onEntersAnswered) onEntersAnswered();
  }

  /** Resolves once every enter issued so far is answered, or after timeoutMs: a counter that does not answer must not hold close() for ever. */
  function entersAnswered(timeoutMs: number): Promise<void> {
    if (entersInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(answered, timeoutMs);
      function answered(): void {
        clearTimeout(timer);
        onEntersAnswered = null;
        resolve();
      }
      onEntersAnswered = answered;
    });
  }

  async function closeOnce(): Promise<void> {
    await entersAnswered(delivery.requestTimeoutMs);
    isReportingClosed = true;
    await Promise.all([reporter.close(), counts?.close()]);
  }

  function toEvent(key: string, othersCount: number, others: readonly OtherInside[], observedAt: number, context: EventContext): CounterEvent {
    const event: CounterEvent = {
      id: randomUUID(),
      key,
      counter: othersCount,
      service: options.service,
      worker: options.worker,
      observedAt,
      ...context,
    };
    // Entry ages are on the backend's clock; subtracted from this worker's observedAt they put
    // the entry times on the same clock as the event.
    if (others.length > 0) event.othersInside = others.map((other) => ({ worker: other.worker, enteredAt: observedAt - other.insideForMs }));
    return event;
  }

  const host: SectionHost = {
    queue,
    counterKeyPrefix: keyPrefix,
    entryIdPrefix,
    worker: options.worker,
    recordEntry(key, othersCount, others, observedAtMs, context) {
      enterAnswered();
      increments += 1;
      const isViolation = othersCount > 0;
      if (isViolation) violations += 1;
      if (isReportingClosed) {
        // Answered after close() stopped waiting (requestTimeoutMs): too late to be sent.
        onError(new Error(`an entry into key "${key}" was answered after close() had stopped reporting: it is counted in stats() only`));
        return;
      }
      try {
        if (mode === "all" || isViolation) reporter.enqueue(toEvent(key, othersCount, others, observedAtMs, context));
        else counts?.record(observedAtMs, context);
      } catch (error) {
        // Never into the counter's loop of answers, which would leave the others unanswered.
        onError(new Error(`could not record the entry into key "${key}": ${messageOf(error)}`, { cause: error }));
      }
    },
    counterFailed(operation, key, error) {
      if (operation === "enter") enterAnswered();
      counterErrors += 1;
      onError(new Error(`exclusivity counter ${operation} failed for key "${key}": ${messageOf(error)}`, { cause: error }));
    },
  };

  return {
    withExclusivity(key, fn, context = NO_CONTEXT) {
      if (isClosed) return Promise.reject(new Error("the exclusivity client is closed"));
      entersInFlight += 1;
      // A section is the unit of work's enter and exit, queued on the counter as they are; its
      // promise is the only one a unit of work costs.
      return new Promise((resolve, reject) =>
        queue(new ExclusivitySection(host, typeof key === "string" ? key : String(key), (entrySequence++).toString(36), fn, context, resolve, reject)),
      );
    },
    async flush() {
      await Promise.all([reporter.flush(), counts?.flush()]);
    },
    close() {
      isClosed = true;
      closing ??= closeOnce();
      return closing;
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
