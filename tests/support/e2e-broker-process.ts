import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

// A real Pulsar broker for a browser test, on the fixed ports playwright.config.ts gives the
// worker (LEADERS_E2E_BROKER), with a fleet of named consumers on one 2-partition topic, in a
// helper process driven over stdin/stdout (one JSON line each way): Baton's tools need Node's
// react-server condition, which Playwright's workers do not have. close() ends the helper's stdin;
// the helper then drops its consumers and stops the broker (also when the test process dies).

const tool = (file: string) => JSON.stringify(path.join(process.cwd(), file));

const SCRIPT = `
const readline = require("node:readline");
const { startBroker } = require(${tool("tools/pulsar/broker.ts")});
const { createPartitionedTopic, createScratchNamespace } = require(${tool("tools/pulsar/admin-setup.ts")});
const { requestAdminOk } = require(${tool("tools/pulsar/admin-http.ts")});
const { createFleet } = require(${tool("tools/fleet/fleet.ts")});

let broker, fleet, topic;
const commands = {
  async start({ webPort, brokerPort }) {
    broker = await startBroker({ webPort, brokerPort });
    fleet = createFleet({ wsUrl: broker.wsUrl });
    return { adminUrl: broker.adminUrl };
  },
  async createTopic({ subscriptions }) {
    const scratch = await createScratchNamespace(broker.adminUrl, "e2e");
    topic = scratch.topic("orders");
    await createPartitionedTopic(broker.adminUrl, topic, 2);
    // Creating the subscriptions loads both partitions: the consumers' first subscribe is then quick.
    // A fresh broker on a loaded machine took over 15 s (the tools' default bound) to load them.
    const topicPath = "/admin/v2/persistent/" + topic.slice("persistent://".length);
    for (const subscription of subscriptions) await requestAdminOk(broker.adminUrl, "PUT", topicPath + "/subscription/" + encodeURIComponent(subscription), { timeoutMs: 120000 });
    return { topic };
  },
  /** One consumer on a Failover subscription; a fresh broker on a busy machine may miss an open timeout. */
  async startConsumer({ name, subscription }) {
    for (let attempt = 1; ; attempt++) {
      try {
        if (attempt === 1) await fleet.startConsumer({ name, topic, subscription, subscriptionType: "Failover", openTimeoutMs: 30000 });
        else await fleet.consumer(name, subscription).start();
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  },
  /** The broker's active consumer of each partition. */
  async leaders({ subscription }) {
    const path = "/admin/v2/persistent/" + topic.slice("persistent://".length) + "/partitioned-stats?perPartition=true";
    const stats = JSON.parse((await requestAdminOk(broker.adminUrl, "GET", path)).text);
    return [0, 1].map((p) => stats.partitions[topic + "-partition-" + p]?.subscriptions?.[subscription]?.activeConsumerName ?? null);
  },
  /** Drops the consumer's socket, as a crashed process does. */
  async kill({ name, subscription }) {
    await fleet.consumer(name, subscription).kill();
  },
};
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, command, args } = JSON.parse(line);
  commands[command](args).then((result) => send({ id, result: result ?? null }), (error) => send({ id, error: String((error && error.stack) || error) }));
});
process.stdin.on("end", async () => {
  await fleet?.shutdown("kill").catch(() => undefined);
  await broker?.stop().catch(() => undefined);
  process.exit(0);
});
`;

export type E2eBroker = {
  adminUrl: string;
  /** A scratch 2-partition topic with these (Failover) subscriptions. */
  createTopic(subscriptions: string[]): Promise<string>;
  startConsumer(name: string, subscription: string): Promise<void>;
  /** The broker's active consumer of partitions 0 and 1. */
  leaders(subscription: string): Promise<(string | null)[]>;
  kill(name: string, subscription: string): Promise<void>;
  close(): Promise<void>;
};

/** Starts the broker and resolves once its admin API answers (10-60 s on a busy two-core machine). */
export async function startE2eBroker(ports: { webPort: number; brokerPort: number }): Promise<E2eBroker> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", SCRIPT], {
    cwd: process.cwd(),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let message: { id?: number; result?: unknown; error?: string };
    try {
      message = JSON.parse(line);
    } catch {
      return; // a log line of the broker launcher, not an answer
    }
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error));
    else waiter.resolve(message.result);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error("the broker helper exited"));
  });
  const call = <T>(command: string, args: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.stdin!.write(`${JSON.stringify({ id, command, args })}\n`);
    });
  const close = async () => {
    child.stdin!.end();
    await exited;
  };
  try {
    const { adminUrl } = await call<{ adminUrl: string }>("start", ports);
    return {
      adminUrl,
      createTopic: async (subscriptions) => (await call<{ topic: string }>("createTopic", { subscriptions })).topic,
      startConsumer: (name, subscription) => call<void>("startConsumer", { name, subscription }),
      leaders: (subscription) => call<(string | null)[]>("leaders", { subscription }),
      kill: (name, subscription) => call<void>("kill", { name, subscription }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
