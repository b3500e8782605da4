import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  openConsumer,
  openProducer,
  PulsarWebSocketError,
  WebSocketOpenTimeoutError,
  WebSocketUpgradeError,
  type OpenConsumerOptions,
} from "@/lib/pulsar/websocket";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import type { ScratchNamespace } from "@/tools/pulsar/admin-setup";

// The WebSocket client's contract against the real broker: typed open failures, a stream that
// ends cleanly on close(), send receipts, and no error left unhandled (vitest fails the run on any).
let scratch: ScratchNamespace;

beforeAll(async () => {
  scratch = await createTestNamespace("ws");
});

afterAll(async () => {
  await scratch?.cleanup();
});

const consumerOptions = (overrides: Partial<OpenConsumerOptions> = {}): OpenConsumerOptions => ({
  wsUrl: getTestBroker().wsUrl,
  topic: scratch.topic("events"),
  subscription: "reader",
  subscriptionType: "Failover",
  consumerName: "reader-1",
  ...overrides,
});

async function openFailure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the open to fail");
    },
    (error: unknown) => error,
  );
}

describe("open failures are typed and say why", () => {
  it("an invalid subscription type: HTTP 400 with the broker's reason", async () => {
    const error = await openFailure(openConsumer(consumerOptions({ subscriptionType: "Bogus" as OpenConsumerOptions["subscriptionType"] })));
    expect(error).toBeInstanceOf(WebSocketUpgradeError);
    expect((error as WebSocketUpgradeError).status).toBe(400);
    expect((error as WebSocketUpgradeError).message).toContain("HTTP 400");
    expect((error as WebSocketUpgradeError).detail).toContain("Invalid subscriptionType Bogus");
  });

  it("a namespace that does not exist: HTTP 404", async () => {
    const error = await openFailure(openProducer({ wsUrl: getTestBroker().wsUrl, topic: `persistent://${scratch.tenant}/missing/events` }));
    expect(error).toBeInstanceOf(WebSocketUpgradeError);
    expect((error as WebSocketUpgradeError).status).toBe(404);
    expect((error as WebSocketUpgradeError).detail).toContain("Namespace not found");
  });

  it("nothing listening: a PulsarWebSocketError naming the refused connection", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await openFailure(openConsumer(consumerOptions({ wsUrl: `ws://127.0.0.1:${port}` })));
    expect(error).toBeInstanceOf(PulsarWebSocketError);
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("a server that accepts and never answers: WebSocketOpenTimeoutError after openTimeoutMs", async () => {
    const sockets: Socket[] = [];
    const server: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const error = await openFailure(openConsumer(consumerOptions({ wsUrl: `ws://127.0.0.1:${port}`, openTimeoutMs: 300 })));
      expect(error).toBeInstanceOf(WebSocketOpenTimeoutError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("a consumer and a producer", () => {
  it("delivers payload, key and properties through messages(), and the stream ends when the consumer is closed", async () => {
    const topic = scratch.topic("stream");
    const consumer = await openConsumer(consumerOptions({ topic, subscriptionType: "Exclusive" }));
    const producer = await openProducer({ wsUrl: getTestBroker().wsUrl, topic, producerName: "stream-producer" });
    const sentIds: string[] = [];
    for (let index = 0; index < 3; index++) {
      sentIds.push(await producer.send({ payload: Buffer.from(`payload-${index}`), key: `key-${index}`, properties: { index: String(index) } }));
    }

    const received: { payload: string; key?: string; index?: string }[] = [];
    for await (const message of consumer.messages()) {
      received.push({ payload: message.payload.toString("utf8"), key: message.key, index: message.properties.index });
      await consumer.ack(message.messageId);
      if (received.length === 3) await consumer.close();
    }

    expect(received).toEqual([
      { payload: "payload-0", key: "key-0", index: "0" },
      { payload: "payload-1", key: "key-1", index: "1" },
      { payload: "payload-2", key: "key-2", index: "2" },
    ]);
    expect(sentIds.every((id) => id.length > 0)).toBe(true);
    expect(await consumer.closed).toMatchObject({ initiatedBy: "client", code: 1000 });
    await producer.close();
  });

  it("after terminate() the stream ends, and acks and sends on the dropped sockets reject", async () => {
    const topic = scratch.topic("dropped");
    const consumer = await openConsumer(consumerOptions({ topic, subscriptionType: "Shared" }));
    consumer.terminate();
    const info = await consumer.closed;
    expect(info.initiatedBy).toBe("client");
    const next = await consumer.messages().next();
    expect(next.done).toBe(true);
    await expect(consumer.ack("CAAQAA==")).rejects.toBeInstanceOf(PulsarWebSocketError);

    const producer = await openProducer({ wsUrl: getTestBroker().wsUrl, topic });
    producer.terminate();
    await producer.closed;
    await expect(producer.send({ payload: "late" })).rejects.toBeInstanceOf(PulsarWebSocketError);
  });

  it("a throwing message listener is reported as an error event, and delivery goes on", async () => {
    const topic = scratch.topic("listeners");
    const consumer = await openConsumer(consumerOptions({ topic, subscriptionType: "Shared" }));
    const errors: PulsarWebSocketError[] = [];
    consumer.on("error", (error) => errors.push(error));
    let seen = 0;
    consumer.on("message", (message) => {
      seen += 1;
      void consumer.ack(message.messageId);
      if (seen === 1) throw new Error("listener bug");
    });
    const producer = await openProducer({ wsUrl: getTestBroker().wsUrl, topic });
    await producer.send({ payload: "one" });
    await producer.send({ payload: "two" });
    for (let attempt = 0; attempt < 50 && seen < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));

    expect(seen).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("listener bug");
    await producer.close();
    await consumer.close();
  });
});
