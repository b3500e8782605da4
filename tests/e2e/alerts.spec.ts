import { randomUUID } from "node:crypto";

import { expect, test } from "@playwright/test";
import pg from "pg";

import { LOCKS_E2E_CLUSTER } from "../../playwright.config";

// The Alerts page: incidents go into the e2e database as the evaluator writes them (alert rows
// with their transitions). The worker beside the web app evaluates too and would resolve them
// (their conditions do not hold), so this test takes the evaluator lease from it first, as a
// standby does when the holder is deposed: it bumps the epoch and holds the advisory lock.

const run = randomUUID().slice(0, 6);
const MINUTE = 60_000;
const LOCK_CLASS = 0x42415441;

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

let lease: pg.Client;
let db: pg.Client;

async function takeEvaluatorLease(): Promise<void> {
  lease = new pg.Client({ connectionString: databaseUrl() });
  await lease.connect();
  await lease.query("update alert_evaluator_lease set epoch = epoch + 1 where id = 1");
  // The deposed worker lets go of its lock within a heartbeat (2 s); poll until this test holds it.
  await expect
    .poll(async () => (await lease.query<{ locked: boolean }>("select pg_try_advisory_lock($1::int, 1) as locked", [LOCK_CLASS])).rows[0]!.locked, {
      timeout: 20_000,
      intervals: [250],
    })
    .toBe(true);
}

type Seed = {
  rule: string;
  state: "firing" | "pending" | "resolved";
  labels: Record<string, string>;
  summary: string;
  description: string;
  link: string;
  activeMs: number;
  firedMs?: number;
  resolvedMs?: number;
};

async function seed(alert: Seed): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `insert into alert (fingerprint, rule, labels, severity, summary, description, link, state, active_at, fired_at, resolved_at, last_sent_at)
     values ($1, $2, $3, 'critical', $4, $5, $6, $7, $8, $9, $10, $9) returning id`,
    [
      `${alert.rule}-${run}-${alert.activeMs}`,
      alert.rule,
      JSON.stringify({ alertname: alert.rule, ...alert.labels }),
      alert.summary,
      alert.description,
      alert.link,
      alert.state,
      new Date(alert.activeMs),
      alert.firedMs ? new Date(alert.firedMs) : null,
      alert.resolvedMs ? new Date(alert.resolvedMs) : null,
    ],
  );
  const steps: [string | null, string, number | undefined][] = [
    [null, "pending", alert.activeMs],
    ["pending", "firing", alert.firedMs],
    ["firing", "resolved", alert.resolvedMs],
  ];
  for (const [from, to, at] of steps)
    if (at !== undefined)
      await db.query("insert into alert_transition (alert_id, from_state, to_state, at) values ($1, $2, $3, $4)", [rows[0]!.id, from, to, new Date(at)]);
}

test.beforeAll(async () => {
  db = new pg.Client({ connectionString: databaseUrl() });
  await db.connect();
  await takeEvaluatorLease();
  const now = Date.now();
  const topic = `persistent://acme/orders/events-${run}`;
  const subscriptionLink = `http://localhost:3000/subscriptions?${new URLSearchParams({ cluster: "prod-eu", topic, subscription: "billing" })}`;
  await seed({
    rule: "no-holder",
    state: "resolved",
    labels: { cluster: "prod-eu", kind: "pulsar-subscription", resource: topic, subscription: "billing" },
    summary: `No holder: billing on ${topic} (prod-eu)`,
    description: "No active consumer: no consumer is connected to the topic",
    link: subscriptionLink,
    activeMs: now - 50 * MINUTE,
    firedMs: now - 49 * MINUTE,
    resolvedMs: now - 45 * MINUTE,
  });
  await seed({
    rule: "no-holder",
    state: "firing",
    labels: { cluster: "prod-eu", kind: "pulsar-subscription", resource: topic, subscription: "billing" },
    summary: `No holder: billing on ${topic} (prod-eu)`,
    description: "No active consumer: no consumer is connected to the topic",
    link: subscriptionLink,
    activeMs: now - 3 * MINUTE,
    firedMs: now - 2.5 * MINUTE,
  });
  await seed({
    rule: "violations",
    state: "firing",
    labels: { service: `orders-${run}` },
    summary: `Violations outside deployments: orders-${run}`,
    description: "12 violations outside deployments in the last 5 min (more than 0)",
    link: `http://localhost:3000/violations?service=orders-${run}`,
    activeMs: now - MINUTE,
    firedMs: now - MINUTE,
  });
  await seed({
    rule: "stuck",
    state: "pending",
    labels: { cluster: "redis-main", kind: "redis-lock", resource: `lock:daily-${run}` },
    summary: `Stuck holder: lock:daily-${run} (redis-main)`,
    description: "Stuck holder: pod-a has held it for 2 h 3 m",
    link: `http://localhost:3000/locks?cluster=redis-main&key=lock%3Adaily-${run}`,
    activeMs: now - 20_000,
  });
});

/** A lock of the locks e2e's cluster (which nothing polls), current, as the poller writes it. */
async function seedLock(lockKey: string, nowMs: number): Promise<void> {
  const scope = {
    patterns: [
      { match: "lock:*", layout: "token", mustBeHeld: false },
      { match: "leader:*", layout: "redisson", mustBeHeld: true },
    ],
  };
  const { rows } = await db.query<{ id: number }>(
    `insert into cluster (name, kind, admin_url, scope, poll_interval_ms, is_configured, updated_at) values ($1, 'REDIS', 'redis://127.0.0.1:6379', $2, 120000, true, now())
     on conflict (name) do update set kind = 'REDIS', scope = excluded.scope, poll_interval_ms = excluded.poll_interval_ms returning id`,
    [LOCKS_E2E_CLUSTER.name, JSON.stringify(scope)],
  );
  const details = {
    pattern: "lock:*",
    ttlMs: 30_000,
    isSplit: false,
    stats: { tenureMaxTtlMs: 30_000, nearExpiryCount: 0, longestHoldMs: 0 },
    source: { layout: "token" },
  };
  await db.query(
    `insert into held_resource (cluster_id, kind, resource_key, holder, holder_token, holder_since, expires_at, consumers, details, first_seen_at, last_observed_at)
     values ($1, 'REDIS_LOCK', $2, 'pod-a', 'pod-a:1', $3, $4, '[]', $5, $6, $7)`,
    [
      rows[0]!.id,
      lockKey,
      new Date(nowMs - 20 * MINUTE),
      new Date(nowMs + 29_000),
      JSON.stringify(details),
      new Date(nowMs - 3 * 3_600_000),
      new Date(nowMs - 1_000),
    ],
  );
  await db.query(
    `insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
     values ($1, $2, $3, 40, 120000, 1, 1, 1, 0, 1, 'e2e')`,
    [rows[0]!.id, new Date(nowMs - 40), new Date(nowMs)],
  );
}

test.afterAll(async () => {
  await db?.query("delete from alert where fingerprint like $1", [`%-${run}-%`]);
  await db?.query("delete from held_resource where resource_key = $1", [`lock:alerted-${run}`]);
  await db?.end();
  await lease?.end(); // gives the evaluator lease back to the worker
});

test("the Alerts page lists firing and pending alerts, then the resolved, with their history and links", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();

  const open = page.getByRole("table", { name: "Firing and pending alerts" });
  const openRows = open.getByRole("row").filter({ hasText: run });
  await expect(openRows).toHaveCount(3);
  await expect(openRows.nth(0)).toContainText("Firing (critical)");
  await expect(openRows.nth(0)).toContainText(`Violations outside deployments: orders-${run}`);
  await expect(openRows.nth(1)).toContainText("No holder: billing");
  await expect(openRows.nth(1).getByRole("list", { name: "State history" }).getByRole("listitem")).toHaveText([/^Pending /, /^Firing /]);
  await expect(openRows.nth(2)).toContainText("Pending");

  const resolved = page.getByRole("table", { name: "Resolved alerts" }).getByRole("row").filter({ hasText: run });
  await expect(resolved).toHaveCount(1);
  await expect(resolved.getByRole("list", { name: "State history" }).getByRole("listitem")).toHaveText([/^Pending /, /^Firing /, /^Resolved /]);
  // The header says the same: critical alerts fire, and one or more are pending (the stuck holder).
  await expect(page.getByTestId("health-status")).toHaveText(/\d+ critical/);
  await expect(page.getByRole("banner").getByRole("link", { name: /^\d+ pending$/ })).toBeVisible();

  await page.screenshot({ path: "docs/screenshots/alerts.png", fullPage: true });

  // The link opens the page that explains it, in this Baton.
  await openRows
    .nth(0)
    .getByRole("link", { name: `Violations outside deployments: orders-${run}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/violations\\?service=orders-${run}$`));
});

test("the header and the Alerts item say what fires from the page's first paint, before the health check answers", async ({ page }) => {
  // Every health check is held unanswered: what the header says comes with the page itself.
  await page.route("**/api/health", () => undefined);
  await page.goto("/deployments");
  // This spec holds the evaluator's lease, so the headline may also say that no worker evaluates.
  const headline = page.getByTestId("health-status");
  await expect(headline).toHaveText(/^(No worker · )?\d+ critical( · \d+ warning)? firing$/);
  const firingCount = page.getByRole("navigation", { name: "Main" }).getByTestId("alerts-firing-count");
  await expect(firingCount).toHaveText(/^\d+ firing$/);
  const firingWords = (text: string | null) => (text ?? "").replace(/^No worker · /, "");
  const rendered = { firing: firingWords(await headline.textContent()), count: await firingCount.textContent() };

  // Once the check answers, it says the same (with the lease held, no alert changes meanwhile).
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/health" && response.ok());
  await page.unroute("**/api/health");
  await page.getByRole("group", { name: "Refresh" }).getByRole("button", { name: "Refresh" }).click();
  const check = (await (await answered).json()) as { verdict: { headline: string; firing: { total: number } } };
  expect(firingWords(check.verdict.headline)).toBe(rendered.firing);
  expect(`${check.verdict.firing.total} firing`).toBe(rendered.count);
});

test("a lock's timeline marks its alerts under the chart", async ({ page }) => {
  const now = Date.now();
  const lockKey = `lock:alerted-${run}`;
  await seedLock(lockKey, now);
  const labels = { cluster: LOCKS_E2E_CLUSTER.name, kind: "redis-lock", resource: lockKey };
  const link = `http://localhost:3000/locks?cluster=${LOCKS_E2E_CLUSTER.name}&key=${encodeURIComponent(lockKey)}`;
  await seed({
    rule: "expired-while-held",
    state: "resolved",
    labels,
    summary: `Lock expired while held: ${lockKey}`,
    description: "expired while pod-z held it",
    link,
    activeMs: now - 90 * MINUTE,
    firedMs: now - 90 * MINUTE,
    resolvedMs: now - 80 * MINUTE,
  });
  await seed({
    rule: "stuck",
    state: "firing",
    labels,
    summary: `Stuck holder: ${lockKey}`,
    description: "pod-a has held it for 20 m",
    link,
    activeMs: now - 12 * MINUTE,
    firedMs: now - 10 * MINUTE,
  });

  await page.goto(`/locks?${new URLSearchParams({ cluster: LOCKS_E2E_CLUSTER.name, key: lockKey })}`);
  const markers = page.getByRole("list", { name: "Alerts in this range" }).getByRole("listitem");
  await expect(markers).toHaveCount(2);
  await expect(markers.nth(0)).toHaveAccessibleName(new RegExp(`^Lock expired while held: ${lockKey}: fired .*, resolved `));
  await expect(markers.nth(1)).toHaveAccessibleName(new RegExp(`^Stuck holder: ${lockKey}: fired .*, still firing$`));
  await markers.nth(1).click();
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
});
