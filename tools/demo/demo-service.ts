// One demo service: named workers consuming a real topic through the WebSocket API, each
// message processed inside the mutual-exclusivity counter, so every violation Baton shows is a
// real overlap of two workers on one key.
import { randomUUID } from "node:crypto";

import type { CounterBackend } from "@/lib/exclusivity-client";
import { createExclusivityClient, type ExclusivityClient } from "@/lib/exclusivity-client";
import { createFleetConsumer, type FleetConnection, type FleetConsumer } from "@/tools/fleet/fleet-consumer";
import { makeKeys, openKeyedProducer, type KeyedProducer } from "@/tools/fleet/keyed-producer";
import type { ConsumerMessage } from "@/lib/pulsar/websocket";
import type { DemoService } from "@/tools/demo/demo-plan";
import { readMessagePartition } from "@/tools/demo/message-partition";
import { createWorkerStall, type StallOutcome, type StallPlan } from "@/tools/demo/worker-stall";

type DemoWorker = {
  name: string;
  consumer: FleetConsumer;
  exclusivity: ExclusivityClient;
  /** The pod should be running: the supervisor (re)connects it, as a real client would. */
  isWanted: boolean;
  /**
   * The process is gone (crashed or shut down): it finishes the message in hand, and the
   * messages it had prefetched are left unacked, for the broker to redeliver to others.
   */
  isDown: boolean;
  /** Messages are processed one at a time, in order, like a single-threaded consumer. */
  queue: Promise<unknown>;
};

export type RunningService = {
  plan: DemoService;
  fullTopic: string;
  workerNames(): string[];
  startWorker(name: string): Promise<void>;
  /** Graceful: the pod shuts down. */
  stopWorker(name: string): Promise<void>;
  /** A crash: the socket drops; the supervisor restarts the pod after `downMs`. */
  crashWorker(name: string, downMs: number): Promise<void>;
  /**
   * The GC-pause case: the worker freezes in the middle of a message (inside the counter), its
   * connection times out (the partition moves to another worker, which gets the unacked message
   * of the same key), then it wakes, finishes the message late and reconnects. Says whether
   * another worker entered the key meanwhile (a violation counted).
   */
  stallWorker(name: string, plan: StallPlan): Promise<StallOutcome>;
  close(): Promise<void>;
};

export type ServiceDeps = {
  connection: FleetConnection;
  counter: CounterBackend;
  baton: { url: string; token: string };
  /**
   * Namespace of the counters (in Redis, shared across runs): one per demo run, so a count left
   * by an earlier run stopped mid-message is never taken for an overlap of this one.
   */
  counterKeyPrefix: string;
  namespace: string;
  log: (line: string) => void;
};

const SUPERVISE_EVERY_MS = 1_000;
/** How long a stopping service waits for the units its workers hold to finish. */
const CLOSE_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);

export async function startService(plan: DemoService, deps: ServiceDeps): Promise<RunningService> {
  const fullTopic = `persistent://${deps.namespace}/${plan.topic}`;
  const workers = new Map<string, DemoWorker>();
  const stalls = createWorkerStall();
  const producer: KeyedProducer = await openKeyedProducer(deps.connection, {
    topic: fullTopic,
    keys: makeKeys(plan.keys, plan.keyPrefix),
    payload: (sequence, key) => JSON.stringify({ sequence, key, traceId: randomUUID() }),
  });

  async function process(worker: DemoWorker, message: ConsumerMessage): Promise<void> {
    let traceId: string | undefined;
    try {
      traceId = (JSON.parse(message.payload.toString("utf8")) as { traceId?: string }).traceId;
    } catch {
      traceId = undefined; // not a demo message: processed without a trace id
    }
    const key = message.key ?? "";
    await worker.exclusivity.withExclusivity(
      key,
      async (entry) => {
        await stalls.atEntry(worker.name, key, entry);
        await sleep(between(plan.processingMs));
      },
      { topic: fullTopic, subscription: plan.subscription, partition: plan.partitions > 1 ? readMessagePartition(message.messageId) : -1, traceId },
    );
  }

  let isClosed = false;

  function addWorker(name: string): DemoWorker {
    const exclusivity = createExclusivityClient({
      counter: deps.counter,
      keyPrefix: deps.counterKeyPrefix,
      baton: deps.baton,
      service: plan.service,
      worker: name,
      flushIntervalMs: 500,
      onError: (error) => deps.log(`${name}: ${error.message}`),
    });
    const worker: DemoWorker = { name, exclusivity, isWanted: true, isDown: false, queue: Promise.resolve(), consumer: undefined as unknown as FleetConsumer };
    worker.consumer = createFleetConsumer(deps.connection, {
      name,
      topic: fullTopic,
      subscription: plan.subscription,
      subscriptionType: plan.subscriptionType,
      subscriptionInitialPosition: "Latest",
      receiverQueueSize: 20,
      ack: (message) => {
        const done = worker.queue.then(async () => {
          if (worker.isDown) return "leave" as const;
          await process(worker, message);
          return "ack" as const;
        });
        worker.queue = done.catch(() => undefined);
        return done;
      },
    });
    workers.set(name, worker);
    return worker;
  }

  const supervisor = setInterval(() => {
    for (const worker of workers.values()) {
      const state = worker.consumer.state;
      if (worker.isWanted && (state === "idle" || state === "failed" || state === "killed" || state === "stopped")) {
        // A restarted pod; an Exclusive standby is refused (409) while the holder lives and
        // simply tries again.
        worker.isDown = false;
        worker.consumer.start().catch(() => undefined);
      }
    }
  }, SUPERVISE_EVERY_MS);

  for (const name of plan.workers) addWorker(name);
  await Promise.all([...workers.values()].map((w) => w.consumer.start().catch(() => undefined)));
  producer.startRate(plan.ratePerSecond);

  const get = (name: string) => {
    const worker = workers.get(name);
    if (!worker) throw new Error(`${plan.service} has no worker ${name}`);
    return worker;
  };

  return {
    plan,
    fullTopic,
    workerNames: () => [...workers.keys()],
    async startWorker(name) {
      // A rollout or a scaling step still under way when the demo stops adds no worker.
      if (isClosed) return;
      const worker = workers.get(name) ?? addWorker(name);
      worker.isWanted = true;
      worker.isDown = false;
      await worker.consumer.start().catch(() => undefined);
    },
    async stopWorker(name) {
      const worker = get(name);
      worker.isWanted = false;
      worker.isDown = true;
      await worker.consumer.stop();
      await worker.queue;
      await worker.exclusivity.flush();
      workers.delete(name);
    },
    async crashWorker(name, downMs) {
      const worker = get(name);
      worker.isWanted = false;
      worker.isDown = true;
      await worker.consumer.kill();
      setTimeout(() => (worker.isWanted = true), downMs);
    },
    stallWorker(name, stallPlan) {
      const worker = get(name);
      // Unlike a crash, the stalled process lives on: it wakes up, finishes what it holds (the
      // broker has redelivered those messages to others meanwhile) and reconnects.
      return stalls.stall(name, stallPlan, {
        onFrozen: () => {
          // Frozen mid-message: the broker stops hearing from it and moves its partitions.
          worker.isWanted = false;
          void worker.consumer.kill();
        },
        onWoken: () => (worker.isWanted = true),
      });
    },
    async close() {
      isClosed = true;
      clearInterval(supervisor);
      await producer.close();
      for (const worker of workers.values()) {
        worker.isWanted = false;
        // Messages still queued are left for the broker; the one in hand finishes.
        worker.isDown = true;
        await worker.consumer.kill().catch(() => undefined);
      }
      // The units in hand leave their keys before the counter's connection closes (a frozen
      // worker is not waited for past the bound: its exit would then fail, as a real one's would).
      await Promise.race([Promise.all([...workers.values()].map((worker) => worker.queue)), sleep(CLOSE_WAIT_MS)]);
      for (const worker of workers.values()) await worker.exclusivity.close().catch(() => undefined);
    },
  };
}
