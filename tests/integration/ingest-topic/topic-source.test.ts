import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openProducer, type PulsarProducer } from "@/lib/pulsar/websocket";
import { createNonPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { waitFor } from "@/tests/support/poller-harness";
import { createTestNamespace, getTestBroker } from "@/tests/support/pulsar";
import { getTestDatabaseUrl } from "@/tests/support/test-database";
import { workerNodeArgs } from "@/tests/support/worker-process";

// The ingest topic end to end: the real worker process consumes a real topic, is killed
// (SIGKILL, a crash) in the middle of the stream and started again.
const VALID = 600;
const broker = getTestBroker();
const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
let scratch: Awaited<ReturnType<typeof createTestNamespace>>;
let topic: string;
let producer: PulsarProducer;
let worker: ChildProcess | undefined;
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });

const MALFORMED = [
  "{not json",
  JSON.stringify({ id: `${run}-bad-1`, counter: 1, service: "s", worker: "w", observedAt: Date.now() }), // no key
  JSON.stringify({ id: `${run}-bad-2`, key: "k", counter: "one", service: "s", worker: "w", observedAt: Date.now() }),
  JSON.stringify([]),
  "42",
];

async function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, await workerNodeArgs(), {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BATON_CLUSTERS: JSON.stringify([{ name: `ingest-${run}`, adminUrl: broker.adminUrl, scope: { namespaces: [scratch.namespace] } }]),
      BATON_INGEST_TOPIC: topic,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return child;
}

async function countRows(): Promise<{ events: number; deadLetters: number }> {
  const events = await db.query<{ n: string }>(
    "select count(*) as n from exclusivity_event where baton_id_text(event_id) like $1 and source = 'PULSAR_TOPIC'",
    [`${run}-%`],
  );
  const dead = await db.query<{ n: string }>("select count(*) as n from dead_letter where source = $1", [`ingest-${run}/${topic}`]);
  return { events: Number(events.rows[0]!.n), deadLetters: Number(dead.rows[0]!.n) };
}

function event(i: number) {
  return {
    id: `${run}-${i}`,
    key: `user-${i % 37}`,
    counter: i % 5 === 0 ? 1 : 0,
    service: "orders",
    worker: `pod-${i % 3}`,
    topic,
    subscription: "orders-workers",
    partition: i % 4,
    traceId: `trace-${i}`,
    observedAt: Date.now(),
  };
}

async function publish(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 10) {
    // Some messages carry one event, some an array of several.
    const chunk = Array.from({ length: Math.min(10, to - i) }, (_, k) => event(i + k));
    if (chunk.length === 10 && i % 20 === 0) await producer.send({ payload: JSON.stringify(chunk) });
    else for (const e of chunk) await producer.send({ payload: JSON.stringify(e), key: e.key });
  }
}

beforeAll(async () => {
  scratch = await createTestNamespace("ingest-topic");
  topic = scratch.topic("counter-events");
  await createNonPartitionedTopic(broker.adminUrl, topic);
  producer = await openProducer({ wsUrl: broker.wsUrl, topic });
});

afterAll(async () => {
  worker?.kill("SIGKILL");
  await producer?.close();
  await scratch?.cleanup();
  await db.end();
});

describe("the ingest topic", () => {
  it("survives a crash mid-stream: every valid event exactly once, malformed messages in the dead-letter table", async () => {
    worker = await startWorker();
    await publish(0, VALID / 2);
    for (const bad of MALFORMED.slice(0, 2)) await producer.send({ payload: bad });
    await waitFor(countRows, (c) => c.events >= 50, "the worker to write some events");

    worker.kill("SIGKILL");
    await new Promise((resolve) => worker!.once("exit", resolve));
    const atCrash = await countRows();
    await publish(VALID / 2, VALID);
    for (const bad of MALFORMED.slice(2)) await producer.send({ payload: bad });
    expect(atCrash.events).toBeLessThan(VALID);

    worker = await startWorker();
    const final = await waitFor(countRows, (c) => c.events === VALID && c.deadLetters === MALFORMED.length, "all events and dead letters", 300, 200);
    expect(final).toEqual({ events: VALID, deadLetters: MALFORMED.length });

    const letters = await db.query<{ error: string }>("select error from dead_letter where source = $1 order by id", [`ingest-${run}/${topic}`]);
    expect(letters.rows.map((r) => r.error).join("\n")).toMatch(/not JSON[\s\S]*key[\s\S]*counter/);
    const rollup = await db.query<{ v: string }>(
      "select coalesce(sum(violations), 0) as v from violation_minute where service = 'orders' and subscription = 'orders-workers'",
    );
    expect(Number(rollup.rows[0]!.v)).toBeGreaterThanOrEqual(VALID / 5);
  });
});
