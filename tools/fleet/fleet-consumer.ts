import "server-only";
import { openConsumer, type ConsumerMessage, type PulsarConsumer, type PulsarWebSocketError, type SubscriptionType } from "@/lib/pulsar/websocket";

/**
 * One named consumer of a test or demo fleet: it can be started (again), killed abruptly (a
 * crash: the socket drops without a close frame), stopped gracefully, or stalled (connected but
 * not reading, like a process in a long GC pause).
 */

/** What to do with a message: ack it (also for `undefined`), nack it, or leave it unacknowledged. */
export type MessageVerdict = "ack" | "nack" | "leave";
export type MessageHandler = (message: ConsumerMessage, consumer: FleetConsumer) => MessageVerdict | undefined | Promise<MessageVerdict | undefined>;

export interface FleetConsumerSpec {
  /** The consumerName the broker reports. */
  name: string;
  topic: string;
  subscription: string;
  subscriptionType: SubscriptionType;
  /** "auto" (default) acks every message on receipt; "none" never acks; or a handler decides. */
  ack?: "auto" | "none" | MessageHandler;
  receiverQueueSize?: number;
  priorityLevel?: number;
  subscriptionInitialPosition?: "Latest" | "Earliest";
  negativeAckRedeliveryDelayMs?: number;
}

export type FleetConsumerState = "idle" | "starting" | "running" | "stalled" | "stopped" | "killed" | "failed";

export interface FleetConsumerCounts {
  received: number;
  acked: number;
  nacked: number;
  /** Messages received per key (messages without a key count under ""). */
  byKey: Map<string, number>;
}

export interface FleetConsumer {
  readonly spec: FleetConsumerSpec;
  readonly name: string;
  readonly state: FleetConsumerState;
  readonly counts: FleetConsumerCounts;
  /** Errors seen since creation (ack failures, a broken connection), oldest first, at most 50. */
  readonly errors: readonly Error[];
  /** Opens the consumer; after kill() or stop() this is a restart under the same name. */
  start(): Promise<void>;
  /** Crash: drops the socket without a close frame; resolves once it is closed. */
  kill(): Promise<void>;
  /** Graceful close. */
  stop(): Promise<void>;
  /** Stops reading from the socket; the broker still sees a connected consumer. */
  stall(): void;
  resume(): void;
  /** Called for every message after the ack decision (for tests that watch deliveries). */
  onMessage(listener: (message: ConsumerMessage) => void): () => void;
}

export interface FleetConnection {
  wsUrl: string;
  token?: string;
}

const MAX_KEPT_ERRORS = 50;

export function createFleetConsumer(connection: FleetConnection, spec: FleetConsumerSpec): FleetConsumer {
  let socket: PulsarConsumer | undefined;
  let state: FleetConsumerState = "idle";
  const counts: FleetConsumerCounts = { received: 0, acked: 0, nacked: 0, byKey: new Map() };
  const errors: Error[] = [];
  const observers = new Set<(message: ConsumerMessage) => void>();

  const recordError = (error: Error) => {
    errors.push(error);
    if (errors.length > MAX_KEPT_ERRORS) errors.shift();
  };

  const settle = async (message: ConsumerMessage, consumer: PulsarConsumer) => {
    const verdict = await decide(message);
    if (verdict === "ack") {
      await consumer.ack(message.messageId);
      counts.acked += 1;
    } else if (verdict === "nack") {
      await consumer.nack(message.messageId);
      counts.nacked += 1;
    }
  };

  const decide = async (message: ConsumerMessage): Promise<MessageVerdict> => {
    const policy = spec.ack ?? "auto";
    if (policy === "auto") return "ack";
    if (policy === "none") return "leave";
    return (await policy(message, fleetConsumer)) ?? "ack";
  };

  const fleetConsumer: FleetConsumer = {
    spec,
    name: spec.name,
    get state() {
      return state;
    },
    counts,
    errors,
    async start() {
      if (state === "starting" || state === "running" || state === "stalled") return;
      state = "starting";
      try {
        const opened = await openConsumer({ ...spec, consumerName: spec.name, wsUrl: connection.wsUrl, token: connection.token });
        socket = opened;
        opened.on("error", (error: PulsarWebSocketError) => recordError(error));
        opened.on("message", async (message) => {
          counts.received += 1;
          const key = message.key ?? "";
          counts.byKey.set(key, (counts.byKey.get(key) ?? 0) + 1);
          try {
            await settle(message, opened);
          } catch (error) {
            // The socket can close between delivery and ack (a kill): the broker redelivers.
            recordError(error instanceof Error ? error : new Error(String(error)));
          }
          for (const observer of observers) observer(message);
        });
        void opened.closed.then((info) => {
          // Only a close nobody asked for changes the state; kill() and stop() set theirs.
          if (socket === opened && info.initiatedBy !== "client") {
            state = "failed";
            if (info.error) recordError(info.error);
          }
        });
        state = "running";
      } catch (error) {
        state = "failed";
        throw error;
      }
    },
    async kill() {
      const current = socket;
      // Already closed (killed, stopped, or dropped by the broker): its state says how.
      if (!current?.isOpen()) return;
      state = "killed";
      current.terminate();
      await current.closed;
    },
    async stop() {
      const current = socket;
      if (!current?.isOpen()) return;
      state = "stopped";
      await current.close();
    },
    stall() {
      if (!socket || state !== "running") return;
      socket.pause();
      state = "stalled";
    },
    resume() {
      if (!socket || state !== "stalled") return;
      socket.resume();
      state = "running";
    },
    onMessage(listener) {
      observers.add(listener);
      return () => observers.delete(listener);
    },
  };
  return fleetConsumer;
}
