import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { expect, test, type Page } from "@playwright/test";
import { Redis } from "ioredis";

import { createExclusivityClient, type ExclusivityClient } from "../../lib/exclusivity-client";
import { LIVE_LOCKS_E2E_CLUSTER } from "../../playwright.config";

// A violation's cause from real activity, not seeded rows: a real lock on the machine's Redis that
// the worker beside the web app polls (playwright.config.ts: LIVE_LOCKS_E2E_CLUSTER), and two
// schedulers that run their job inside Baton's exclusivity counter (lib/exclusivity-client on the
// same Redis) naming the lock they ran under. sched-a takes the lock and stalls past its TTL
// while inside the job; Redis expires the lock; sched-b takes it and enters the job: the counter
// sees sched-a still inside and reports the violation through the ingest API. The poller records
// the expiry while held, and the Violations page and the key's drill-down must name the cause
// "Holder stalled past its lock's TTL".

const run = randomUUID().slice(0, 8);
const LOCK = `baton-e2e-live:causes-${run}`;
const LOCK_REF = `${LIVE_LOCKS_E2E_CLUSTER.name}/${LOCK}`;
const SERVICE = `e2e-scheduler-${run}`;
const JOB_KEY = `daily-report-${run}`;
const SCHED_A = `sched-a-${run}`;
const SCHED_B = `sched-b-${run}`;
const COUNTER_PREFIX = `baton-e2e-causes-${run}:`;
const A_TTL_MS = 2_000;

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

function scheduler(worker: string, baseURL: string, token: string): ExclusivityClient {
  const client = createExclusivityClient({
    redis,
    keyPrefix: COUNTER_PREFIX,
    baton: { url: baseURL, token },
    service: SERVICE,
    worker,
    flushIntervalMs: 100,
    onError: (error) => errors.push(`${worker}: ${error.message}`),
  });
  clients.push(client);
  return client;
}

test("a lock holder that stalled past its TTL while another took the lock: its violation's cause is 'Holder stalled past its lock's TTL'", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const token = createToken();
  const schedA = scheduler(SCHED_A, baseURL!, token);
  const schedB = scheduler(SCHED_B, baseURL!, token);

  // sched-a takes the lock, and Baton sees it.
  await redis.set(LOCK, SCHED_A, "PX", A_TTL_MS);
  await expect.poll(() => holderInBaton(page), { timeout: 30_000, intervals: [250] }).toBe(SCHED_A);

  // sched-a enters the job and stalls inside it, past its lock's TTL: Redis expires the lock.
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
  await expect.poll(() => holderInBaton(page), { timeout: 30_000, intervals: [250] }).toBe(SCHED_B);
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
  await expect(explanation).toContainText(`Holder stalled past its lock's TTL: the lock ${LOCK_REF} expired while ${SCHED_A} held it, and ${SCHED_B} entered key ${JOB_KEY}`);
});
