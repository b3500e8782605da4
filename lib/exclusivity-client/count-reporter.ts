import type { EventContext } from "./counter-event";
import { type CountGroup, type CountsBody, MAX_COUNT_GROUPS } from "./counts-body";
import { postToBaton } from "./post-to-baton";
import { backoffMs, MAX_RETRY_AFTER_MS, sleep } from "./retry-policy";

export type CountReporterOptions = {
  url: string;
  token: string;
  /** This client instance's id (a UUID): a restart counts under a new id. */
  clientId: string;
  service: string;
  worker: string;
  flushIntervalMs: number;
  maxAttempts: number;
  requestTimeoutMs: number;
  fetch: typeof fetch;
  onError: (error: Error) => void;
};

export type CountReporterStats = {
  /** Increments counted and not yet sent. */
  countsPending: number;
  /** Increments Baton acknowledged. */
  countsSent: number;
  /** Increments whose minute could not be delivered. */
  countsDropped: number;
};

export type CountReporter = {
  /** Counts one increment (that saw nobody inside) at `atMs` under its subscription and topic. */
  record(atMs: number, context: Pick<EventContext, "subscription" | "topic">): void;
  /** Sends every minute that has ended; the current minute keeps counting. */
  flush(): Promise<void>;
  /** Stops the timer and sends every minute, the current one too (nothing is counted after). */
  close(): Promise<void>;
  stats(): CountReporterStats;
};

const MINUTE_MS = 60_000;

type Attempt = { outcome: "sent" } | { outcome: "failed"; error: Error; retryAfterMs: number | null; isRetryable: boolean };

/**
 * Per-minute counts of the increments that are not violations, POSTed once per ended minute.
 * A minute is sent only once it is over (or at close()), because Baton keeps the first body of a
 * (client, minute, group) and ignores re-sends: a minute sent early and counted further would
 * lose what came after. Retries are therefore safe. Nothing here throws at the caller.
 */
export function createCountReporter(options: CountReporterOptions): CountReporter {
  const endpoint = `${options.url.replace(/\/+$/, "")}/api/v1/exclusivity-counts`;
  // minute start -> "subscription\0topic" -> group
  const pending = new Map<number, Map<string, CountGroup>>();
  let countsPending = 0;
  let countsSent = 0;
  let countsDropped = 0;
  let queue: Promise<void> = Promise.resolve();
  // The group the last increment went to: a consumer's increments mostly share one, and finding
  // it again costs more than the rest of record(). Forgotten when its minute leaves `pending`.
  let lastGroup: CountGroup | null = null;
  let lastMinute = 0;
  let lastSubscription: string | undefined;
  let lastTopic: string | undefined;

  async function post(body: CountsBody): Promise<Attempt> {
    const answer = await postToBaton({ fetch: options.fetch, endpoint, token: options.token, timeoutMs: options.requestTimeoutMs }, body);
    if (answer.outcome === "unreachable") return { outcome: "failed", error: answer.error, retryAfterMs: null, isRetryable: true };
    if (answer.ok) return { outcome: "sent" };
    const error = new Error(`Baton answered ${answer.status} to the counts of ${body.minute}: ${answer.text.slice(0, 300)}`);
    return { outcome: "failed", error, retryAfterMs: answer.retryAfterMs, isRetryable: answer.isRetryable };
  }

  async function send(body: CountsBody): Promise<void> {
    const increments = body.counts.reduce((sum, group) => sum + group.increments, 0);
    countsPending -= increments;
    for (let attempt = 1; ; attempt++) {
      const result = await post(body);
      if (result.outcome === "sent") {
        countsSent += increments;
        return;
      }
      if (!result.isRetryable || attempt >= options.maxAttempts) {
        countsDropped += increments;
        options.onError(
          new Error(`dropped the counts of ${body.minute} (${increments} increments) after ${attempt} attempt(s): ${result.error.message}`, {
            cause: result.error,
          }),
        );
        return;
      }
      await sleep(Math.min(MAX_RETRY_AFTER_MS, result.retryAfterMs ?? backoffMs(attempt)));
    }
  }

  async function sendMinutes(isEndedOnly: boolean): Promise<void> {
    const nowMs = Date.now();
    const due = [...pending.keys()].filter((minute) => !isEndedOnly || minute + MINUTE_MS <= nowMs).sort((a, b) => a - b);
    for (const minute of due) {
      const groups = [...pending.get(minute)!.values()];
      pending.delete(minute);
      if (minute === lastMinute) lastGroup = null;
      for (let i = 0; i < groups.length; i += MAX_COUNT_GROUPS) {
        const body: CountsBody = {
          clientId: options.clientId,
          service: options.service,
          worker: options.worker,
          mode: "violations+counts",
          minute: new Date(minute).toISOString(),
          counts: groups.slice(i, i + MAX_COUNT_GROUPS),
        };
        await send(body);
      }
    }
  }

  /** One send at a time, in order: a later flush waits for the earlier one. */
  function enqueueSend(isEndedOnly: boolean): Promise<void> {
    queue = queue.then(() =>
      sendMinutes(isEndedOnly).catch((error: unknown) => {
        // A bug here (not a failed request) must not stop reporting for good.
        options.onError(error instanceof Error ? error : new Error(String(error)));
      }),
    );
    return queue;
  }

  const timer = setInterval(() => void enqueueSend(true), options.flushIntervalMs);
  // A reporter must not keep a service alive on its own; close() sends on shutdown.
  timer.unref();

  return {
    record(atMs, context) {
      const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
      countsPending += 1;
      if (lastGroup !== null && minute === lastMinute && context.subscription === lastSubscription && context.topic === lastTopic) {
        lastGroup.increments += 1;
        return;
      }
      let groups = pending.get(minute);
      if (!groups) {
        groups = new Map();
        pending.set(minute, groups);
      }
      const groupKey = `${context.subscription ?? ""}\u0000${context.topic ?? ""}`;
      let group = groups.get(groupKey);
      if (!group) {
        group = { ...(context.subscription ? { subscription: context.subscription } : {}), ...(context.topic ? { topic: context.topic } : {}), increments: 0 };
        groups.set(groupKey, group);
      }
      group.increments += 1;
      lastGroup = group;
      lastMinute = minute;
      lastSubscription = context.subscription;
      lastTopic = context.topic;
    },
    flush: () => enqueueSend(true),
    async close() {
      clearInterval(timer);
      await enqueueSend(false);
    },
    stats: () => ({ countsPending, countsSent, countsDropped }),
  };
}
