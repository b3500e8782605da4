import "server-only";
import { openProducer, type PulsarProducer } from "@/lib/pulsar/websocket";
import type { FleetConnection } from "./fleet-consumer";
import { startRateTicker, type RateTicker } from "./rate-ticker";

/**
 * A producer that cycles through a fixed set of keys: publish a counted batch (tests), or run at a
 * steady rate (demos), e.g. 20 msg/s over 8 keys.
 */

export interface KeyedProducerSpec {
  topic: string;
  /** The keys to cycle through, in order. */
  keys: readonly string[];
  producerName?: string;
  /** Payload of the n-th message (0-based); default `{"seq":n,"key":...}`. */
  payload?: (sequence: number, key: string) => string | Buffer;
}

export interface KeyedProducer {
  readonly spec: KeyedProducerSpec;
  readonly sentCount: number;
  readonly failedCount: number;
  /** Sent messages' ids per key, in send order. */
  readonly sentByKey: ReadonlyMap<string, readonly string[]>;
  readonly errors: readonly Error[];
  /** Sends `count` messages, one at a time (keeps per-key order), resolving with their ids. */
  publish(count: number): Promise<string[]>;
  /** Publishes at `ratePerSecond` until stopRate() or close(). */
  startRate(ratePerSecond: number): void;
  stopRate(): Promise<void>;
  close(): Promise<void>;
}

const MAX_KEPT_ERRORS = 50;
// At a rate, sends are pipelined (the WebSocket producer keeps their order), so throughput is
// not capped by one round trip per message; this bounds the receipts awaited at once.
const MAX_IN_FLIGHT = 100;

/** "key-0" ... "key-(count-1)". */
export function makeKeys(count: number, prefix = "key"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
}

export async function openKeyedProducer(connection: FleetConnection, spec: KeyedProducerSpec): Promise<KeyedProducer> {
  if (spec.keys.length === 0) throw new Error("a keyed producer needs at least one key");
  const producer: PulsarProducer = await openProducer({
    wsUrl: connection.wsUrl,
    token: connection.token,
    topic: spec.topic,
    producerName: spec.producerName,
  });
  let sequence = 0;
  let sentCount = 0;
  let failedCount = 0;
  const sentByKey = new Map<string, string[]>();
  const errors: Error[] = [];
  let ticker: RateTicker | undefined;
  const inFlight = new Set<Promise<unknown>>();

  const sendNext = async (): Promise<string> => {
    const current = sequence++;
    const key = spec.keys[current % spec.keys.length]!;
    const payload = spec.payload ? spec.payload(current, key) : JSON.stringify({ seq: current, key });
    try {
      const messageId = await producer.send({ payload, key });
      sentCount += 1;
      const ids = sentByKey.get(key) ?? [];
      ids.push(messageId);
      sentByKey.set(key, ids);
      return messageId;
    } catch (error) {
      failedCount += 1;
      throw error;
    }
  };

  const recordError = (error: unknown) => {
    errors.push(error instanceof Error ? error : new Error(String(error)));
    if (errors.length > MAX_KEPT_ERRORS) errors.shift();
  };

  return {
    spec,
    get sentCount() {
      return sentCount;
    },
    get failedCount() {
      return failedCount;
    },
    sentByKey,
    errors,
    async publish(count) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await sendNext());
      return ids;
    },
    startRate(ratePerSecond) {
      if (ticker) throw new Error("this producer is already publishing at a rate; stopRate() first");
      ticker = startRateTicker(
        ratePerSecond,
        async () => {
          const sending = sendNext().catch(recordError);
          inFlight.add(sending);
          void sending.finally(() => inFlight.delete(sending));
          if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
        },
        recordError,
      );
    },
    async stopRate() {
      const current = ticker;
      ticker = undefined;
      await current?.stop();
      await Promise.all(inFlight);
    },
    async close() {
      await ticker?.stop();
      ticker = undefined;
      await Promise.all(inFlight);
      await producer.close();
    },
  };
}
