import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { expect, test, type Page } from "@playwright/test";
import { Redis } from "ioredis";
import pg from "pg";

import { createExclusivityClient, type ExclusivityClient, type EventContext } from "../../lib/exclusivity-client";
import { LEADERS_E2E_BROKER, LIVE_LOCKS_E2E_CLUSTER, LIVE_LOCKS_E2E_PREFIX } from "../../playwright.config";
import { type E2eBroker, startE2eBroker } from "../support/e2e-broker-process";

// A violation's cause from real activity, not seeded rows: a real lock on the machine's Redis that
// the worker beside the web app polls (playwright.config.ts: LIVE_LOCKS_E2E_CLUSTER), and two
// schedulers that run their job inside Baton's exclusivity counter (lib/exclusivity-client on the
// same Redis) naming the lock they ran under. sched-a takes the lock and stalls past its TTL
// while inside the job; Redis expires the lock; sched-b takes it and enters the job: the counter
// sees sched-a still inside and reports the violation through the ingest API. The poller records
// the expiry while held, and the Violations page and the key's drill-down must name the cause
// "Holder stalled past its lock's TTL".
//
// Then the partition cases on a real broker that the worker polls (the leaders e2e's ports,
// LEADERS_E2E_BROKER): workers that consume a Failover subscription of a 2-partition topic and
// process each key inside the same counter. A worker stalls inside a key of the partition it
// leads until its connection dies and the partition moves to the other worker, which enters the
// key: "Worker stalled while another took its key". On another subscription the leader dies, and
// a message it had already taken is still processed after its partition moved (it entered after
// Baton last saw it lead): "Failover overlap".

const run = randomUUID().slice(0, 8);
const LOCK = `${LIVE_LOCKS_E2E_PREFIX}causes-${run}`;
const LOCK_REF = `${LIVE_LOCKS_E2E_CLUSTER.name}/${LOCK}`;
const SERVICE = `e2e-scheduler-${run}`;
const JOB_KEY = `daily-report-${run}`;
const SCHED_A = `sched-a-${run}`;
const SCHED_B = `sched-b-${run}`;
const COUNTER_PREFIX = `baton-e2e-causes-${run}:`;
const A_TTL_MS = 2_000;
const STALL_SUB = `stall-${run}`;
const FAILOVER_SUB = `failover-${run}`;
const STALL_KEY = `user-stall-${run}`;
const FAILOVER_KEY = `user-failover-${run}`;
const PARTITION_SERVICE = `e2e-orders-${run}`;
const workerName = (label: string) => `${label}-${run}`;

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

/** A bearer token for the ingest API, through the real command line. */
function createToken(): string {
  const output = execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/token.ts", "create", "--name", `e2e-causes-${run}`], {
    env: { ...process.env, DATABASE_URL: databaseUrl() },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const token = output.trim().split("\n").pop() ?? "";
  if (!token.startsWith("bat_")) throw new Error(`token:create printed no token: ${output}`);
  return token;
}

let redis: Redis;
let token: string | undefined;
const clients: ExclusivityClient[] = [];
const errors: string[] = [];

test.beforeAll(async () => {
  redis = new Redis(LIVE_LOCKS_E2E_CLUSTER.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});

test.afterAll(async () => {
  for (const client of clients) await client.close();
  await redis?.del(LOCK);
  const counters = await redis?.keys(`${COUNTER_PREFIX}*`);
  if (counters && counters.length > 0) await redis.del(...counters);
  await redis?.quit();
});

/** The lock's holder as Baton's read API tells it (null: free or not seen yet). */
async function holderInBaton(page: Page): Promise<string | null> {
  const response = await page.request.get(`/api/v1/locks?${new URLSearchParams({ cluster: LIVE_LOCKS_E2E_CLUSTER.name, q: LOCK })}`);
  if (!response.ok()) return null;
  const board = (await response.json()) as { locks: { key: string; holder: string | null }[] };
  return board.locks.find((lock) => lock.key === LOCK)?.holder ?? null;
}

/** One token per run, through the real command line. */
function ingestToken(): string {
  token ??= createToken();
  return token;
}

function scheduler(worker: string, baseURL: string, token: string, service = SERVICE): ExclusivityClient {
  const client = createExclusivityClient({
    redis,
    keyPrefix: COUNTER_PREFIX,
    baton: { url: baseURL, token },
    service,
    worker,
    flushIntervalMs: 100,
    onError: (error) => errors.push(`${worker}: ${error.message}`),
  });
  clients.push(client);
  return client;
}

test("a lock holder that stalled past its TTL while another took the lock: its violation's cause is 'Holder stalled past its lock's TTL'", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const token = ingestToken();
  const schedA = scheduler(SCHED_A, baseURL!, token);
  const schedB = scheduler(SCHED_B, baseURL!, token);

  // sched-a takes the lock with a short TTL that its watchdog renews, until Baton has read it
  // (a poll cycle on a loaded machine can take longer than one TTL).
  await redis.set(LOCK, SCHED_A, "PX", A_TTL_MS);
  await expect
    .poll(
      async () => {
        await redis.pexpire(LOCK, A_TTL_MS);
        return holderInBaton(page);
      },
      { timeout: 60_000, intervals: [250] },
    )
    .toBe(SCHED_A);

  // sched-a enters the job and stalls inside it (its watchdog with it), past its lock's TTL:
  // Redis expires the lock.
  let wakeA: () => void = () => undefined;
  const aIsInside = new Promise<void>((inside) => {
    void schedA.withExclusivity(
      JOB_KEY,
      () => {
        inside();
        return new Promise<void>((wake) => (wakeA = wake));
      },
      { lock: LOCK_REF },
    );
  });
  await aIsInside;
  await expect.poll(() => redis.exists(LOCK), { timeout: 10_000, intervals: [100] }).toBe(0);

  // sched-b takes the lock (Baton records the expiry while sched-a held it) and runs the job
  // while sched-a is still inside: the counter counts the violation, sched-b reports it.
  await redis.set(LOCK, SCHED_B, "PX", 60_000);
  await expect.poll(() => holderInBaton(page), { timeout: 60_000, intervals: [250] }).toBe(SCHED_B);
  const entry = await schedB.withExclusivity(JOB_KEY, (e) => e, { lock: LOCK_REF });
  expect(entry.isViolation).toBe(true);
  wakeA();
  await schedB.flush();
  await schedA.flush();
  expect(errors).toEqual([]);

  // The Violations page lists it under its cause, in the headline's words.
  await page.goto(`/violations?${new URLSearchParams({ range: "1h", service: SERVICE })}`);
  await expect(page.getByTestId("cause-count-holder-stalled")).toHaveText("1", { timeout: 30_000 });
  await expect(page.getByTestId("cause-list").getByRole("radio", { name: "Holder stalled past its lock's TTL (1)" })).toBeVisible();
  await expect(page.getByTestId("violation-chart").locator('[data-testid="bar-segment"][data-segment="holder-stalled"]')).toHaveCount(1);

  // Its drill-down names the same cause, with the lock's expiry as the evidence.
  await page.getByTestId("top-keys").getByRole("link", { name: JOB_KEY }).click();
  await expect(page.getByTestId("drilldown-causes")).toHaveText("1 violation: 1 holder stalled past its lock's TTL.");
  const explanation = page.getByTestId("violation-explanation");
  await expect(explanation).toHaveAttribute("data-cause", "holder-stalled");
  await expect(explanation.getByTestId("violation-cause")).toHaveText("Holder stalled past its lock's TTL");
  await expect(explanation).toContainText(
    `Holder stalled past its lock's TTL: the lock ${LOCK_REF} expired while ${SCHED_A} held it, and ${SCHED_B} entered key ${JOB_KEY}`,
  );
});

/** Enters `key` and stays inside until the returned function is called; resolves once inside. */
async function enterAndStay(client: ExclusivityClient, key: string, context: EventContext): Promise<() => void> {
  let leave: () => void = () => undefined;
  await new Promise<void>((inside) => {
    void client.withExclusivity(
      key,
      () => {
        inside();
        return new Promise<void>((done) => (leave = done));
      },
      context,
    );
  });
  return leave;
}

test.describe("on a real broker", () => {
  test.describe.configure({ mode: "serial" });
  let broker: E2eBroker;
  let topic: string;
  let db: pg.Client;

  test.beforeAll(async () => {
    // Starting a broker takes 10-60 s on a busy two-core machine.
    test.setTimeout(300_000);
    db = new pg.Client({ connectionString: databaseUrl() });
    await db.connect();
    broker = await startE2eBroker({ webPort: LEADERS_E2E_BROKER.webPort, brokerPort: LEADERS_E2E_BROKER.brokerPort });
    topic = await broker.createTopic([STALL_SUB, FAILOVER_SUB]);
    // One at a time, in name order: the Failover rule then gives partition 0 to the "a" worker.
    for (const sub of [STALL_SUB, FAILOVER_SUB])
      for (const name of [workerName(`${sub.split("-")[0]}-a`), workerName(`${sub.split("-")[0]}-b`)]) await broker.startConsumer(name, sub);
  });

  test.afterAll(async () => {
    await broker?.close();
    await db?.end();
  });

  /** Partition 0's holder of `subscription` as Baton's read API tells it (null: none or not seen yet). */
  async function holderInBaton(page: Page, subscription: string): Promise<string | null> {
    const response = await page.request.get(`/api/v1/leaders?${new URLSearchParams({ cluster: LEADERS_E2E_BROKER.cluster, q: subscription })}`);
    if (!response.ok()) return null;
    const board = (await response.json()) as {
      subscriptions: { subscription: string; partitions: { partition: number; holder: string | null; staleSince: string | null }[] }[];
    };
    const row = board.subscriptions.find((s) => s.subscription === subscription)?.partitions.find((p) => p.partition === 0);
    return row && row.staleSince === null ? row.holder : null;
  }

  /** Whether a poll cycle of the broker that started after `afterMs` has succeeded (it saw the leaders as they were then). */
  async function hasPolledSince(afterMs: number): Promise<boolean> {
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from poll_run r join cluster c on c.id = r.cluster_id where c.name = $1 and r.started_at > $2 and r.error_count = 0",
      [LEADERS_E2E_BROKER.cluster, new Date(afterMs)],
    );
    return rows[0]!.n > 0;
  }

  async function openDrilldown(page: Page, key: string) {
    await page.goto(`/violations?${new URLSearchParams({ range: "1h", service: PARTITION_SERVICE })}`);
    await page.getByTestId("top-keys").getByRole("link", { name: key }).click();
    return page.getByTestId("violation-explanation");
  }

  test("a worker that stalled inside a key while its partition moved to another: 'Worker stalled while another took its key'", async ({ page, baseURL }) => {
    test.setTimeout(180_000);
    const [a, b] = [workerName("stall-a"), workerName("stall-b")];
    await expect.poll(() => broker.leaders(STALL_SUB), { timeout: 30_000 }).toEqual([a, b]);
    await expect.poll(() => holderInBaton(page, STALL_SUB), { timeout: 60_000, intervals: [250] }).toBe(a);
    const context: EventContext = { topic, subscription: STALL_SUB, partition: 0 };
    const workerA = scheduler(a, baseURL!, ingestToken(), PARTITION_SERVICE);
    const workerB = scheduler(b, baseURL!, ingestToken(), PARTITION_SERVICE);

    // a enters the key and freezes inside it; Baton still sees a lead partition 0 after that.
    const enteredAt = Date.now();
    const leaveA = await enterAndStay(workerA, STALL_KEY, context);
    await expect.poll(() => hasPolledSince(enteredAt), { timeout: 30_000, intervals: [250] }).toBe(true);
    // Frozen, its connection dies: the broker gives partition 0 to b, and Baton records the move.
    await broker.kill(a, STALL_SUB);
    await expect.poll(() => holderInBaton(page, STALL_SUB), { timeout: 60_000, intervals: [250] }).toBe(b);
    // b takes the key's next message while a is still inside it.
    const entry = await workerB.withExclusivity(STALL_KEY, (e) => e, context);
    expect(entry.isViolation).toBe(true);
    leaveA();
    await workerB.flush();
    await workerA.flush();
    expect(errors).toEqual([]);

    await page.goto(`/violations?${new URLSearchParams({ range: "1h", service: PARTITION_SERVICE })}`);
    await expect(page.getByTestId("cause-count-worker-stalled")).toHaveText("1", { timeout: 30_000 });
    const explanation = await openDrilldown(page, STALL_KEY);
    await expect(page.getByTestId("drilldown-causes")).toHaveText("1 violation: 1 worker stalled while another took its key.");
    await expect(explanation).toHaveAttribute("data-cause", "worker-stalled");
    await expect(explanation.getByTestId("violation-cause")).toHaveText("Worker stalled while another took its key");
    await expect(explanation).toContainText(a);
    // a → b, or a → none → b when a poll fell between the two.
    await expect(page.getByTestId("leader-change-table")).toContainText(a);
  });

  test("a message taken before a failover and processed after it: 'Failover overlap'", async ({ page, baseURL }) => {
    test.setTimeout(180_000);
    const [a, b] = [workerName("failover-a"), workerName("failover-b")];
    await expect.poll(() => broker.leaders(FAILOVER_SUB), { timeout: 30_000 }).toEqual([a, b]);
    await expect.poll(() => holderInBaton(page, FAILOVER_SUB), { timeout: 60_000, intervals: [250] }).toBe(a);
    const context: EventContext = { topic, subscription: FAILOVER_SUB, partition: 0 };
    const workerA = scheduler(a, baseURL!, ingestToken(), PARTITION_SERVICE);
    const workerB = scheduler(b, baseURL!, ingestToken(), PARTITION_SERVICE);

    // a's connection dies; once the broker has given partition 0 to b, no poll can see a lead it,
    // and a processes a message it had already received: it enters after Baton last saw it lead.
    // A poll that read the broker before the move may still be finishing (its "last seen" is when
    // it ends, on a loaded machine after a's entry): a enters once a poll that started after the
    // move has finished, so every poll that saw a lead ended before.
    await broker.kill(a, FAILOVER_SUB);
    await expect.poll(async () => (await broker.leaders(FAILOVER_SUB))[0], { timeout: 30_000, intervals: [100] }).toBe(b);
    const movedAt = Date.now();
    await expect.poll(() => hasPolledSince(movedAt), { timeout: 30_000, intervals: [250] }).toBe(true);
    const leaveA = await enterAndStay(workerA, FAILOVER_KEY, context);
    await expect.poll(() => holderInBaton(page, FAILOVER_SUB), { timeout: 60_000, intervals: [250] }).toBe(b);
    const entry = await workerB.withExclusivity(FAILOVER_KEY, (e) => e, context);
    expect(entry.isViolation).toBe(true);
    leaveA();
    await workerB.flush();
    await workerA.flush();
    expect(errors).toEqual([]);

    await page.goto(`/violations?${new URLSearchParams({ range: "1h", service: PARTITION_SERVICE })}`);
    await expect(page.getByTestId("cause-count-failover-overlap")).toHaveText("1", { timeout: 30_000 });
    const explanation = await openDrilldown(page, FAILOVER_KEY);
    await expect(page.getByTestId("drilldown-causes")).toHaveText("1 violation: 1 failover overlap.");
    await expect(explanation).toHaveAttribute("data-cause", "failover-overlap");
    await expect(explanation.getByTestId("violation-cause")).toHaveText("Failover overlap");
    // a → b, or a → none → b when a poll fell between the two.
    await expect(page.getByTestId("leader-change-table")).toContainText(a);
  });
});
