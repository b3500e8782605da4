import type { CounterEvent } from "./counter-event";
import { postToBaton } from "./post-to-baton";
import { backoffMs, MAX_RETRY_AFTER_MS, sleep } from "./retry-policy";

export type EventReporterOptions = {
  /** Baton's base URL, e.g. http://baton.internal:3000. */
  url: string;
  /** A bearer token from `npm run token:create`. */
  token: string;
  maxBatch: number;
  flushIntervalMs: number;
  /** Events kept while Baton is unreachable; beyond this the oldest are dropped. */
  maxBufferedEvents: number;
  /** Tries per batch before it is dropped. */
  maxAttempts: number;
  requestTimeoutMs: number;
  fetch: typeof fetch;
  onError: (error: Error) => void;
};

export type ReporterStats = { buffered: number; sent: number; dropped: number };

export type EventReporter = {
  enqueue(event: CounterEvent): void;
  /** Sends everything buffered now; resolves when each of those events is sent or dropped. */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
  stats(): ReporterStats;
};

/** Baton refused some events of a batch (they are not retried: the same data would fail again). */
export class RejectedEventsError extends Error {
  override name = "RejectedEventsError";
  constructor(readonly errors: { index: number; field: string | null; message: string }[]) {
    super(`Baton rejected ${errors.length} event(s); first: ${errors[0] ? `#${errors[0].index} ${errors[0].field ?? "item"} ${errors[0].message}` : "?"}`);
  }
}

type Attempt = { outcome: "sent" } | { outcome: "dropped"; error: Error } | { outcome: "retry"; error: Error; retryAfterMs: number | null };

/**
 * Buffers counter events and POSTs them to Baton in batches: when a batch is full, every
 * flushIntervalMs, and on flush()/close(). One request is in flight at a time; failed requests
 * are retried with exponential backoff (honouring Retry-After), which is safe because event ids
 * make a re-sent batch idempotent. Nothing here throws at the caller: problems go to onError.
 */
export function createEventReporter(options: EventReporterOptions): EventReporter {
  const endpoint = `${options.url.replace(/\/+$/, "")}/api/v1/exclusivity-events`;
  let buffer: CounterEvent[] = [];
  let draining: Promise<void> | null = null;
  let enqueued = 0;
  let sent = 0;
  let dropped = 0;
  let isOverflowReported = false;

  async function post(batch: CounterEvent[]): Promise<Attempt> {
    const answer = await postToBaton({ fetch: options.fetch, endpoint, token: options.token, timeoutMs: options.requestTimeoutMs }, batch);
    if (answer.outcome === "unreachable") return { outcome: "retry", error: answer.error, retryAfterMs: null };
    if (answer.ok) {
      reportRejectedItems(answer.text);
      return { outcome: "sent" };
    }
    const error = new Error(`Baton answered ${answer.status} to a batch of ${batch.length} events: ${answer.text.slice(0, 300)}`);
    if (!answer.isRetryable) return { outcome: "dropped", error };
    return { outcome: "retry", error, retryAfterMs: answer.retryAfterMs };
  }

  /** A 200 lists the items Baton rejected (they are not retried: they would fail again). */
  function reportRejectedItems(text: string): void {
    let body: { errors?: RejectedEventsError["errors"] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      options.onError(new Error(`Baton answered 200 with a body that is not JSON: ${text.slice(0, 100)}`));
      return;
    }
    if (body.errors && body.errors.length > 0) options.onError(new RejectedEventsError(body.errors));
  }

  async function send(batch: CounterEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const result = await post(batch);
      if (result.outcome === "sent") {
        sent += batch.length;
        isOverflowReported = false;
        return;
      }
      if (result.outcome === "dropped" || attempt >= options.maxAttempts) {
        dropped += batch.length;
        options.onError(new Error(`dropped ${batch.length} events after ${attempt} attempt(s): ${result.error.message}`, { cause: result.error }));
        return;
      }
      await sleep(Math.min(MAX_RETRY_AFTER_MS, result.retryAfterMs ?? backoffMs(attempt)));
    }
  }

  // A full batch goes out as soon as it is full; what is left waits for the timer or flush(),
  // so that a quiet service sends one request per interval, not one per event.
  let isDrainingAll = false;

  async function drain(): Promise<void> {
    while (buffer.length >= (isDrainingAll ? 1 : options.maxBatch)) {
      const batch = buffer.slice(0, options.maxBatch);
      buffer = buffer.slice(batch.length);
      try {
        await send(batch);
      } catch (error) {
        // A bug here (not a failed request) must not stop reporting for good.
        dropped += batch.length;
        options.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
    isDrainingAll = false;
  }

  function startDrain(): Promise<void> {
    draining ??= drain().finally(() => {
      draining = null;
    });
    return draining;
  }

  async function flush(): Promise<void> {
    // Events leave the buffer in order (sent, or dropped), so "everything enqueued before this
    // call is settled" is a count. Events that arrive meanwhile do not keep flush() waiting.
    const target = enqueued;
    while (sent + dropped < target) {
      isDrainingAll = true;
      await (draining ?? startDrain());
    }
  }

  function flushInBackground(): void {
    // flush() never rejects: drain() reports every failure through onError.
    void flush();
  }

  const timer = setInterval(flushInBackground, options.flushIntervalMs);
  // A reporter must not keep a service alive on its own; close() flushes on shutdown.
  timer.unref();

  return {
    enqueue(event) {
      enqueued += 1;
      buffer.push(event);
      const overflow = buffer.length - options.maxBufferedEvents;
      if (overflow > 0) {
        buffer.splice(0, overflow);
        dropped += overflow;
        if (!isOverflowReported) {
          isOverflowReported = true;
          options.onError(new Error(`Baton is not keeping up: more than ${options.maxBufferedEvents} events buffered; dropping the oldest`));
        }
      }
      if (buffer.length >= options.maxBatch) void startDrain();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    stats: () => ({ buffered: buffer.length, sent, dropped }),
  };
}
