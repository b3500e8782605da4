import "server-only";

import type { IngestTopicConfig } from "@/lib/config";
import { DatabaseUnavailableError } from "@/lib/ingest/database-unavailable-error";
import { ingestEvents } from "@/lib/ingest/ingest-events";
import type { IngestDb } from "@/lib/ingest/ingest-pool";
import { decodeTopicMessage } from "@/lib/ingest/topic-source/decode-topic-message";
import { type DeadLetter, writeDeadLetters } from "@/lib/ingest/topic-source/write-dead-letters";
import { sleep } from "@/lib/sleep";
import { type ConsumerMessage, openConsumer, type PulsarConsumer } from "@/lib/pulsar/websocket";

// Baton's second ingest source: a Pulsar topic of counter events, consumed over the WebSocket
// API on a Shared (or Key_Shared) subscription of Baton's own, so several Baton workers share
// the load. Nothing is acked before it is committed: a crash redelivers rather than loses, and
// event ids make the redelivery write nothing twice. A malformed message is acked into the
// dead-letter table, so it never blocks the subscription.

export type TopicSourceCounts = { received: number; written: number; duplicates: number; deadLettered: number; acked: number };

export type TopicSourceOptions = {
  topic: IngestTopicConfig;
  db: IngestDb;
  consumerName: string;
  /** Events older than this are refused (dead-lettered), as the HTTP API refuses them. */
  retentionDays: number;
  /** Violations are kept (and so accepted) this far back. */
  violationRetentionDays: number;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Messages written per transaction at most. */
  batchSize?: number;
  /** How long to wait for more messages before writing a partial batch. */
  lingerMs?: number;
  /** Called after each committed and acked batch (tests and benchmarks watch through it). */
  onBatch?: (counts: TopicSourceCounts) => void;
};

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** The WebSocket base URL of a cluster: its admin URL with ws:// or wss://. */
export function toWebSocketUrl(adminUrl: string): string {
  return adminUrl.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`);
}

/** Where dead letters of this topic are filed. */
export function deadLetterSource(topic: IngestTopicConfig): string {
  return `${topic.cluster.name}/${topic.topic}`;
}

type Decoded = { message: ConsumerMessage; items: unknown[]; firstItem: number } | { message: ConsumerMessage; error: string };

/** Writes one batch of messages; throws DatabaseUnavailableError with nothing acked on failure. */
async function writeBatch(options: TopicSourceOptions, batch: ConsumerMessage[], counts: TopicSourceCounts): Promise<void> {
  const items: unknown[] = [];
  const decoded: Decoded[] = batch.map((message) => {
    const result = decodeTopicMessage(message.payload);
    if (!result.isOk) return { message, error: result.error };
    const firstItem = items.length;
    items.push(...result.items);
    return { message, items: result.items, firstItem };
  });
  const result = await ingestEvents(options.db, items, "PULSAR_TOPIC", {
    retentionDays: options.retentionDays,
    violationRetentionDays: options.violationRetentionDays,
  });
  const rejectedByItem = new Map(result.rejected.map((r) => [r.index, r]));
  const deadLetters: DeadLetter[] = [];
  for (const entry of decoded) {
    const payload = entry.message.payload.toString("utf8");
    if ("error" in entry) {
      deadLetters.push({ messageId: entry.message.messageId, payload, error: entry.error });
      continue;
    }
    const problems: string[] = [];
    for (let i = 0; i < entry.items.length; i++) {
      const rejected = rejectedByItem.get(entry.firstItem + i);
      if (rejected) problems.push(`event ${i}${rejected.field ? ` ${rejected.field}` : ""}: ${rejected.message}`);
    }
    // The valid events of a partly bad message are written; the message is kept for its bad ones.
    if (problems.length > 0) deadLetters.push({ messageId: entry.message.messageId, payload, error: problems.join("; ") });
  }
  await writeDeadLetters(options.db, deadLetterSource(options.topic), deadLetters);
  for (const letter of deadLetters) options.log(`ingest topic: message ${letter.messageId} is malformed (${letter.error}); kept as a dead letter`);
  counts.written += result.accepted;
  counts.duplicates += result.duplicates;
  counts.deadLettered += deadLetters.length;
}

/** Writes the batch, retrying while the database is down; false if stopped before it could. */
async function writeBatchUntilCommitted(options: TopicSourceOptions, batch: ConsumerMessage[], counts: TopicSourceCounts): Promise<boolean> {
  let waitMs = RETRY_MIN_MS;
  while (!options.signal.aborted) {
    try {
      await writeBatch(options, batch, counts);
      return true;
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError)) throw error;
      options.log(`ingest topic: database unavailable, ${batch.length} messages wait unacked (${(error.cause as Error)?.message ?? error.message})`);
      await sleep(waitMs, options.signal);
      waitMs = Math.min(waitMs * 2, RETRY_MAX_MS);
    }
  }
  return false;
}

/** Reads, writes and acks until the connection ends or `signal` aborts. */
async function consume(consumer: PulsarConsumer, options: TopicSourceOptions, counts: TopicSourceCounts): Promise<void> {
  const batchSize = options.batchSize ?? 500;
  const lingerMs = options.lingerMs ?? 50;
  const queue: ConsumerMessage[] = [];
  let wake: (() => void) | null = null;
  const stopListening = consumer.on("message", (message) => {
    counts.received++;
    queue.push(message);
    wake?.();
  });
  const ended = Promise.race([consumer.closed, new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }))]);
  try {
    while (!options.signal.aborted && consumer.isOpen()) {
      if (queue.length === 0) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), ended]);
        wake = null;
        continue;
      }
      if (queue.length < batchSize) await sleep(lingerMs, options.signal);
      const batch = queue.splice(0, batchSize);
      if (!(await writeBatchUntilCommitted(options, batch, counts))) return;
      // Acked only now, after the commit. A socket lost during the acks means redelivery of
      // the rest, which the event ids make harmless.
      for (const message of batch) {
        await consumer.ack(message.messageId);
        counts.acked++;
      }
      options.onBatch?.({ ...counts });
    }
  } finally {
    stopListening();
  }
}

/**
 * Consumes the ingest topic until `signal` aborts, reconnecting with backoff when the broker
 * is unreachable or the connection drops.
 */
export async function runTopicSource(options: TopicSourceOptions): Promise<TopicSourceCounts> {
  const counts: TopicSourceCounts = { received: 0, written: 0, duplicates: 0, deadLettered: 0, acked: 0 };
  const { topic, signal, log } = options;
  let waitMs = RETRY_MIN_MS;
  while (!signal.aborted) {
    let consumer: PulsarConsumer;
    try {
      consumer = await openConsumer({
        wsUrl: toWebSocketUrl(topic.cluster.adminUrl),
        topic: topic.topic,
        subscription: topic.subscription,
        subscriptionType: topic.subscriptionType,
        consumerName: options.consumerName,
        receiverQueueSize: 1000,
        // A new subscription starts from the beginning: events sent before Baton came are kept.
        subscriptionInitialPosition: "Earliest",
        token: topic.cluster.token,
      });
    } catch (error) {
      log(`ingest topic ${topic.topic}: cannot subscribe (${(error as Error).message}); retrying in ${waitMs} ms`);
      await sleep(waitMs, signal);
      waitMs = Math.min(waitMs * 2, RETRY_MAX_MS);
      continue;
    }
    waitMs = RETRY_MIN_MS;
    log(`ingest topic ${topic.topic}: consuming as ${options.consumerName} on ${topic.subscription} (${topic.subscriptionType})`);
    try {
      await consume(consumer, options, counts);
    } catch (error) {
      log(`ingest topic ${topic.topic}: ${(error as Error).message}; reconnecting`);
    } finally {
      if (consumer.isOpen()) await consumer.close().catch(() => undefined);
    }
    if (!signal.aborted) await sleep(waitMs, signal);
  }
  return counts;
}
