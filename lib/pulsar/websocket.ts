import "server-only";
import type { ClientRequest, IncomingMessage } from "node:http";
import WebSocket from "ws";
import { z } from "zod";
import { parseStandaloneTopicName, topicPath } from "./topic-name";

/**
 * A typed client for Pulsar's WebSocket API (/ws/v2/consumer, /ws/v2/producer), over `ws`.
 *
 * Node has no native Pulsar client here (the npm one needs C++ headers it cannot download), so
 * Baton produces and consumes through the broker's WebSocket service. Each consumer socket is one
 * real consumer in the broker, named by `consumerName`, so it shows up in topic stats and takes
 * part in Failover elections; closing the socket closes the consumer.
 *
 * Contract: nothing here throws asynchronously or leaves a promise rejected without a handler.
 * Open failures reject the open call with a typed error; later failures go to `on("error")`
 * listeners (or to process warnings when there are none) and end in `closed`, which never rejects.
 */

// ---------------------------------------------------------------------------------------------
// Names

export const SUBSCRIPTION_TYPES = ["Exclusive", "Shared", "Failover", "Key_Shared"] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Errors

export class PulsarWebSocketError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The broker refused the WebSocket upgrade: 409 for a second Exclusive consumer, 400 for bad
 * query parameters, 401/403 for auth, 500 for anything else. */
export class WebSocketUpgradeError extends PulsarWebSocketError {
  /** The broker's reason, e.g. `Failed to create producer/consumer: {"errorMsg":"Exclusive
   * consumer is already connected",...}` (taken from Jetty's HTML error page). */
  readonly detail: string;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly body: string,
    readonly contentType: string | undefined = undefined,
  ) {
    const detail = summarizeErrorBody(body);
    super(`WebSocket upgrade to ${url} failed: HTTP ${status} ${statusText}${detail ? `: ${detail}` : ""}`);
    this.detail = detail;
  }
}

const HTML_ENTITIES: Record<string, string> = { "&quot;": '"', "&amp;": "&", "&lt;": "<", "&gt;": ">", "&#39;": "'", "&apos;": "'" };

/** Jetty answers a refused upgrade with an HTML page whose <title> holds the reason. */
export function summarizeErrorBody(body: string): string {
  const title = /<title>([\s\S]*?)<\/title>/i.exec(body)?.[1];
  const text = (title ?? body).replace(/&(?:quot|amp|lt|gt|#39|apos);/g, (entity) => HTML_ENTITIES[entity] ?? entity);
  return text
    .replace(/^Error \d{3}\s*/, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 500);
}

export class WebSocketOpenTimeoutError extends PulsarWebSocketError {
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`WebSocket to ${url} did not open within ${timeoutMs} ms`);
  }
}

export class WebSocketClosedError extends PulsarWebSocketError {
  constructor(
    readonly url: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(`WebSocket to ${url} closed (code ${code}${reason ? `, ${reason}` : ""})`);
  }
}

/** The broker answered a send with a result other than "ok". */
export class ProducerSendError extends PulsarWebSocketError {
  constructor(
    readonly result: string,
    readonly errorMessage: string | undefined,
  ) {
    super(`Pulsar rejected the message: ${result}${errorMessage ? ` (${errorMessage})` : ""}`);
  }
}

export class ProducerSendTimeoutError extends PulsarWebSocketError {
  constructor(readonly timeoutMs: number) {
    super(`Pulsar did not acknowledge the message within ${timeoutMs} ms`);
  }
}

/** A frame from the broker that is not what the API promises. */
export class WebSocketProtocolError extends PulsarWebSocketError {
  constructor(
    message: string,
    readonly frame: string,
    options?: { cause?: unknown },
  ) {
    super(`${message}: ${frame.slice(0, 200)}`, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared socket handling

export interface CloseInfo {
  code: number;
  reason: string;
  /** "client": close() or terminate() was called; "server": the broker closed; "network": the
   * connection broke (no close frame, or missed heartbeats). */
  initiatedBy: "client" | "server" | "network";
  error?: PulsarWebSocketError;
}

interface ConnectionOptions {
  wsUrl: string;
  /** Sent as "Authorization: Bearer <token>". */
  token?: string;
  /** Default 30 s, covering the upgrade, which includes the broker-side subscribe or create. */
  openTimeoutMs?: number;
  /** Ping interval; a missing pong by the next ping drops the connection. Default 30 s, well
   * under the broker's 5-minute idle timeout for WebSocket sessions. 0 disables. */
  pingIntervalMs?: number;
  /** Extra query parameters, passed as they are. */
  query?: Record<string, string>;
}

// The first subscribe or create in a namespace makes the broker load its bundle: on a loaded
// 2-core machine that took over 10 s (the earlier default), and the open failed although the
// broker answered. The bound only has to catch a broker that never answers.
const DEFAULT_OPEN_TIMEOUT_MS = 30_000;
const DEFAULT_PING_INTERVAL_MS = 30_000;
const GRACEFUL_CLOSE_TIMEOUT_MS = 5_000;
const MAX_ERROR_BODY_BYTES = 4_096;
const NORMAL_CLOSURE = 1000;

type Listener<T> = (value: T) => unknown;

/**
 * Listeners of one event. A listener that throws (or returns a rejected promise) is reported to
 * `onFailure` instead of throwing into the socket's event loop.
 */
class ListenerSet<T> {
  private readonly listeners = new Set<Listener<T>>();

  add(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(value: T, onFailure: (error: unknown) => void): void {
    for (const listener of this.listeners) {
      try {
        const result = listener(value);
        if (isPromiseLike(result)) result.then(undefined, onFailure);
      } catch (error) {
        onFailure(error);
      }
    }
  }
}

/** The listeners of a consumer or producer, one set per event, errors always included. */
type ListenerSets<Events extends { error: PulsarWebSocketError }> = { [E in keyof Events]: ListenerSet<Events[E]> };

function addListener<Events extends { error: PulsarWebSocketError }, E extends keyof Events>(
  sets: ListenerSets<Events>,
  event: E,
  listener: Listener<Events[E]>,
): () => void {
  return sets[event].add(listener);
}

function emitEvent<Events extends { error: PulsarWebSocketError }, E extends keyof Events>(sets: ListenerSets<Events>, event: E, value: Events[E]): void {
  sets[event].emit(value, (failure) => {
    const wrapped = new PulsarWebSocketError(`a "${String(event)}" listener failed: ${String(failure)}`, { cause: failure });
    // A failing error listener must not feed itself.
    if (event === "error") process.emitWarning(wrapped);
    else reportError(sets.error, wrapped);
  });
}

/** Reports an error to listeners, or as a process warning when nobody listens: never lost,
 * never thrown into the socket's event loop. */
function reportError(errorListeners: ListenerSet<PulsarWebSocketError>, error: PulsarWebSocketError): void {
  if (errorListeners.size > 0) {
    errorListeners.emit(error, (failure) =>
      process.emitWarning(new PulsarWebSocketError(`an "error" listener failed: ${String(failure)}`, { cause: failure })),
    );
  } else {
    process.emitWarning(error);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function rawDataToText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

/**
 * One WebSocket with the behaviour both consumers and producers need: a bounded open, typed
 * upgrade errors, heartbeats, graceful and abrupt close, and a `closed` promise that never rejects.
 */
class Connection {
  readonly closed: Promise<CloseInfo>;
  private readonly socket: WebSocket;
  private resolveClosed!: (info: CloseInfo) => void;
  private closeInitiator: CloseInfo["initiatedBy"] | undefined;
  private closeError: PulsarWebSocketError | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private isPongPending = false;
  private isPaused = false;

  constructor(
    readonly url: string,
    private readonly options: ConnectionOptions,
    private readonly onFrame: (text: string) => void,
    private readonly onError: (error: PulsarWebSocketError) => void,
  ) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.socket = new WebSocket(url, {
      headers: options.token ? { Authorization: `Bearer ${options.token}` } : undefined,
      // open() bounds the whole open itself; this only stops a hung handshake later than that.
      handshakeTimeout: (options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS) + 1_000,
      perMessageDeflate: false,
    });
  }

  /** Resolves once the broker accepted the upgrade (the consumer or producer exists by then). */
  open(): Promise<void> {
    const socket = this.socket;
    const timeoutMs = this.options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      let isSettled = false;
      let hasOpenFailed = false;
      const settle = (error?: PulsarWebSocketError) => {
        if (isSettled) return;
        isSettled = true;
        clearTimeout(timer);
        if (error) {
          hasOpenFailed = true;
          this.closeError = error;
          reject(error);
        } else {
          resolve();
        }
      };
      const timer = setTimeout(() => {
        settle(new WebSocketOpenTimeoutError(this.url, timeoutMs));
        this.terminateAs("network");
      }, timeoutMs);

      socket.on("unexpected-response", (request: ClientRequest, response: IncomingMessage) => {
        const refuse = (body: string) => {
          const status = response.statusCode ?? 0;
          settle(new WebSocketUpgradeError(this.url, status, response.statusMessage ?? "", body, response.headers["content-type"]));
          request.destroy();
          this.terminateAs("server");
        };
        readErrorBody(response).then(refuse, (error: unknown) => refuse(`(body unreadable: ${String(error)})`));
      });
      socket.on("open", () => {
        settle();
        this.startHeartbeat();
      });
      // The API sends JSON text frames only.
      socket.on("message", (data) => this.onFrame(rawDataToText(data)));
      socket.on("pong", () => {
        this.isPongPending = false;
      });
      socket.on("error", (error) => {
        const wrapped = new PulsarWebSocketError(`WebSocket to ${this.url} failed: ${error.message}`, { cause: error });
        if (!isSettled) {
          settle(wrapped);
          return;
        }
        // After a failed open, errors are only the echo of our own abort; open() already
        // rejected with the reason.
        if (hasOpenFailed) return;
        this.closeError ??= wrapped;
        this.onError(wrapped);
      });
      socket.on("close", (code, reasonBuffer) => {
        this.stopHeartbeat();
        const reason = reasonBuffer.toString();
        // 1005 (no status) and 1006 (abnormal) mean no close frame arrived: the connection broke.
        const initiatedBy = this.closeInitiator ?? (code === 1005 || code === 1006 ? "network" : "server");
        if (!isSettled) settle(new WebSocketClosedError(this.url, code, reason));
        if (initiatedBy !== "client" && code !== NORMAL_CLOSURE) {
          this.closeError ??= new WebSocketClosedError(this.url, code, reason);
        }
        this.resolveClosed({ code, reason, initiatedBy, error: initiatedBy === "client" ? undefined : this.closeError });
      });
    });
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(frame: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.isOpen) {
        reject(new WebSocketClosedError(this.url, this.socket.readyState, "not open"));
        return;
      }
      this.socket.send(JSON.stringify(frame), (error) => {
        if (error) reject(new PulsarWebSocketError(`sending on ${this.url} failed: ${error.message}`, { cause: error }));
        else resolve();
      });
    });
  }

  /** Close frame, then wait (bounded) for the broker to close its side. */
  async close(): Promise<CloseInfo> {
    const state = this.socket.readyState;
    if (state === WebSocket.CLOSED) return this.closed;
    this.closeInitiator ??= "client";
    if (state === WebSocket.CONNECTING) {
      this.socket.terminate();
      return this.closed;
    }
    if (state === WebSocket.OPEN) this.socket.close(NORMAL_CLOSURE, "closed by client");
    const timer = setTimeout(() => this.socket.terminate(), GRACEFUL_CLOSE_TIMEOUT_MS);
    const info = await this.closed;
    clearTimeout(timer);
    return info;
  }

  /** Drops the TCP connection without a close frame, as a crashed process would. */
  terminate(): void {
    this.terminateAs("client");
  }

  /** Stops reading from the socket, as a stalled process would; the connection stays up. */
  pause(): void {
    this.isPaused = true;
    this.socket.pause();
  }

  resume(): void {
    this.isPaused = false;
    this.isPongPending = false;
    this.socket.resume();
  }

  private terminateAs(initiator: CloseInfo["initiatedBy"]): void {
    this.closeInitiator ??= initiator;
    this.socket.terminate();
  }

  private startHeartbeat(): void {
    const intervalMs = this.options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (intervalMs <= 0) return;
    this.heartbeat = setInterval(() => {
      // A paused socket reads no pongs; that is the stall being simulated, not a dead peer.
      if (this.isPaused) return;
      if (this.isPongPending) {
        this.closeError ??= new PulsarWebSocketError(`no pong from ${this.url} within ${intervalMs} ms`);
        this.onError(this.closeError);
        this.terminateAs("network");
        return;
      }
      this.isPongPending = true;
      this.socket.ping();
    }, intervalMs);
    // The socket keeps the process alive while it is open; the timer alone must not.
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

function readErrorBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      if (size < MAX_ERROR_BODY_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8").slice(0, MAX_ERROR_BODY_BYTES).trim()));
    response.on("error", reject);
  });
}

function buildUrl(wsUrl: string, path: string, query: Record<string, string | number | undefined>): string {
  const url = new URL(`${wsUrl.replace(/\/+$/, "")}${path}`);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** "persistent/tenant/ns/topic" (URL-encoded) of a full topic name, which must be valid. */
function topicUrlPath(topic: string): string {
  const name = parseStandaloneTopicName(topic);
  if (!name) throw new Error(`"${topic}" is not a full topic name like persistent://tenant/namespace/topic`);
  return topicPath(name);
}

// ---------------------------------------------------------------------------------------------
// Consumer

export interface OpenConsumerOptions extends ConnectionOptions {
  /** Full name: persistent://tenant/namespace/topic (a partitioned topic's base name is fine). */
  topic: string;
  subscription: string;
  subscriptionType: SubscriptionType;
  /** The name the broker reports in stats (activeConsumerName, consumers[].consumerName). */
  consumerName: string;
  /** Messages pushed before acks are needed; the broker caps it at 1000. */
  receiverQueueSize?: number;
  subscriptionInitialPosition?: "Latest" | "Earliest";
  /** Failover: lower is preferred (0 is the highest priority). */
  priorityLevel?: number;
  /** Redelivery delay after nack; the broker default is one minute. */
  negativeAckRedeliveryDelayMs?: number;
}

export interface ConsumerMessage {
  /** Opaque (base64); pass it back to ack() or nack(). */
  messageId: string;
  payload: Buffer;
  key?: string;
  properties: Record<string, string>;
  publishTime: string;
  eventTime?: string;
  redeliveryCount: number;
}

const ConsumerFrameSchema = z.object({
  messageId: z.string().min(1),
  payload: z.string(),
  properties: z.record(z.string(), z.string()).optional(),
  publishTime: z.string(),
  redeliveryCount: z.number().int().nonnegative().optional(),
  key: z.string().optional(),
  eventTime: z.string().optional(),
});

interface ConsumerEvents {
  message: ConsumerMessage;
  error: PulsarWebSocketError;
  close: CloseInfo;
}

export interface PulsarConsumer {
  readonly topic: string;
  readonly subscription: string;
  readonly consumerName: string;
  readonly url: string;
  /** Resolves (never rejects) when the socket is closed, whoever closed it. */
  readonly closed: Promise<CloseInfo>;
  isOpen(): boolean;
  /** While any message listener exists, messages go to listeners; otherwise they wait for
   * messages(). Use one style per consumer. */
  on<E extends "message" | "error" | "close">(event: E, listener: (value: ConsumerEvents[E]) => void): () => void;
  /** Async stream of messages; ends when close() was called, throws when the connection was
   * lost or closed by the broker. */
  messages(): AsyncIterableIterator<ConsumerMessage>;
  ack(messageId: string): Promise<void>;
  nack(messageId: string): Promise<void>;
  /** Graceful: close frame, the broker closes the consumer. */
  close(): Promise<CloseInfo>;
  /** Abrupt: drops the socket without a close frame, like a crashed process. */
  terminate(): void;
  /** Stops reading (the broker sees a stalled but connected consumer) until resume(). */
  pause(): void;
  resume(): void;
}

export async function openConsumer(options: OpenConsumerOptions): Promise<PulsarConsumer> {
  const url = buildUrl(options.wsUrl, `/ws/v2/consumer/${topicUrlPath(options.topic)}/${encodeURIComponent(options.subscription)}`, {
    subscriptionType: options.subscriptionType,
    consumerName: options.consumerName,
    receiverQueueSize: options.receiverQueueSize,
    subscriptionInitialPosition: options.subscriptionInitialPosition,
    priorityLevel: options.priorityLevel,
    negativeAckRedeliveryDelay: options.negativeAckRedeliveryDelayMs,
    ...options.query,
  });
  const listeners: ListenerSets<ConsumerEvents> = {
    message: new ListenerSet(),
    error: new ListenerSet(),
    close: new ListenerSet(),
  };
  const buffered: ConsumerMessage[] = [];
  const waiting: Array<{ resolve: (result: IteratorResult<ConsumerMessage>) => void; reject: (error: Error) => void }> = [];
  let endInfo: CloseInfo | undefined;

  const deliver = (message: ConsumerMessage) => {
    if (listeners.message.size > 0) {
      emitEvent(listeners, "message", message);
      return;
    }
    const waiter = waiting.shift();
    if (waiter) waiter.resolve({ value: message, done: false });
    else buffered.push(message);
  };

  const connection = new Connection(
    url,
    options,
    (text) => {
      const message = parseConsumerFrame(text);
      if (message instanceof WebSocketProtocolError) reportError(listeners.error, message);
      else deliver(message);
    },
    (error) => reportError(listeners.error, error),
  );

  void connection.closed.then((info) => {
    endInfo = info;
    for (const waiter of waiting.splice(0)) settleIteratorAtEnd(waiter, info);
    emitEvent(listeners, "close", info);
  });

  await connection.open();

  const consumer: PulsarConsumer = {
    topic: options.topic,
    subscription: options.subscription,
    consumerName: options.consumerName,
    url,
    closed: connection.closed,
    isOpen: () => connection.isOpen,
    on(event, listener) {
      const remove = addListener(listeners, event, listener);
      // Messages that arrived before the first listener was attached are not lost.
      if (event === "message" && buffered.length > 0) {
        queueMicrotask(() => {
          while (listeners.message.size > 0 && buffered.length > 0) emitEvent(listeners, "message", buffered.shift()!);
        });
      }
      return remove;
    },
    messages() {
      const iterator: AsyncIterableIterator<ConsumerMessage> = {
        next() {
          const message = buffered.shift();
          if (message) return Promise.resolve({ value: message, done: false });
          return new Promise((resolve, reject) => {
            if (endInfo) settleIteratorAtEnd({ resolve, reject }, endInfo);
            else waiting.push({ resolve, reject });
          });
        },
        async return() {
          await connection.close();
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
    ack: (messageId) => connection.send({ messageId }),
    nack: (messageId) => connection.send({ type: "negativeAcknowledge", messageId }),
    close: () => connection.close(),
    terminate: () => connection.terminate(),
    pause: () => connection.pause(),
    resume: () => connection.resume(),
  };
  return consumer;
}

function settleIteratorAtEnd(waiter: { resolve: (result: IteratorResult<ConsumerMessage>) => void; reject: (error: Error) => void }, info: CloseInfo): void {
  if (info.initiatedBy === "client") waiter.resolve({ value: undefined, done: true });
  else waiter.reject(info.error ?? new PulsarWebSocketError(`consumer connection closed by the ${info.initiatedBy} (code ${info.code})`));
}

function parseConsumerFrame(text: string): ConsumerMessage | WebSocketProtocolError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return new WebSocketProtocolError("consumer frame is not JSON", text, { cause: error });
  }
  const parsed = ConsumerFrameSchema.safeParse(json);
  if (!parsed.success) {
    return new WebSocketProtocolError(`unexpected consumer frame (${parsed.error.issues[0]?.message ?? "invalid"})`, text, {
      cause: parsed.error,
    });
  }
  const frame = parsed.data;
  return {
    messageId: frame.messageId,
    payload: Buffer.from(frame.payload, "base64"),
    key: frame.key,
    properties: frame.properties ?? {},
    publishTime: frame.publishTime,
    eventTime: frame.eventTime,
    redeliveryCount: frame.redeliveryCount ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Producer

export interface OpenProducerOptions extends ConnectionOptions {
  topic: string;
  producerName?: string;
  /** How long send() waits for the broker's receipt. Default 30 s (the Java client's default). */
  sendTimeoutMs?: number;
}

export interface ProducerMessage {
  payload: string | Buffer;
  key?: string;
  properties?: Record<string, string>;
}

interface ProducerEvents {
  error: PulsarWebSocketError;
  close: CloseInfo;
}

export interface PulsarProducer {
  readonly topic: string;
  readonly url: string;
  readonly closed: Promise<CloseInfo>;
  isOpen(): boolean;
  on<E extends "error" | "close">(event: E, listener: (value: ProducerEvents[E]) => void): () => void;
  /** Resolves with the broker's message id once the message is persisted. */
  send(message: ProducerMessage): Promise<string>;
  close(): Promise<CloseInfo>;
  terminate(): void;
}

const ProducerReplySchema = z.object({
  result: z.string(),
  messageId: z.string().optional(),
  errorMsg: z.string().optional(),
  context: z.string().optional(),
});

const DEFAULT_SEND_TIMEOUT_MS = 30_000;

export async function openProducer(options: OpenProducerOptions): Promise<PulsarProducer> {
  const url = buildUrl(options.wsUrl, `/ws/v2/producer/${topicUrlPath(options.topic)}`, {
    producerName: options.producerName,
    ...options.query,
  });
  const listeners: ListenerSets<ProducerEvents> = { error: new ListenerSet(), close: new ListenerSet() };
  const pending = new Map<string, { resolve: (messageId: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let nextContext = 0;
  const sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;

  const connection = new Connection(
    url,
    options,
    (text) => {
      const reply = parseProducerReply(text);
      if (reply instanceof WebSocketProtocolError) {
        reportError(listeners.error, reply);
        return;
      }
      const entry = reply.context === undefined ? undefined : pending.get(reply.context);
      if (!entry || reply.context === undefined) {
        reportError(listeners.error, new WebSocketProtocolError("producer reply for no pending send", text));
        return;
      }
      pending.delete(reply.context);
      clearTimeout(entry.timer);
      if (reply.result === "ok" && reply.messageId) entry.resolve(reply.messageId);
      else entry.reject(new ProducerSendError(reply.result, reply.errorMsg));
    },
    (error) => reportError(listeners.error, error),
  );

  void connection.closed.then((info) => {
    for (const [context, entry] of pending) {
      pending.delete(context);
      clearTimeout(entry.timer);
      entry.reject(info.error ?? new WebSocketClosedError(url, info.code, info.reason || "closed before the broker answered"));
    }
    emitEvent(listeners, "close", info);
  });

  await connection.open();

  return {
    topic: options.topic,
    url,
    closed: connection.closed,
    isOpen: () => connection.isOpen,
    on: (event, listener) => addListener(listeners, event, listener),
    send(message) {
      const context = String(++nextContext);
      const payload = typeof message.payload === "string" ? Buffer.from(message.payload, "utf8") : message.payload;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(context);
          reject(new ProducerSendTimeoutError(sendTimeoutMs));
        }, sendTimeoutMs);
        pending.set(context, { resolve, reject, timer });
        connection.send({ payload: payload.toString("base64"), properties: message.properties ?? {}, context, key: message.key }).catch((error: unknown) => {
          pending.delete(context);
          clearTimeout(timer);
          reject(error instanceof Error ? error : new PulsarWebSocketError(String(error)));
        });
      });
    },
    close: () => connection.close(),
    terminate: () => connection.terminate(),
  };
}

function parseProducerReply(text: string): z.infer<typeof ProducerReplySchema> | WebSocketProtocolError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return new WebSocketProtocolError("producer reply is not JSON", text, { cause: error });
  }
  const parsed = ProducerReplySchema.safeParse(json);
  return parsed.success ? parsed.data : new WebSocketProtocolError("unexpected producer reply", text, { cause: parsed.error });
}
