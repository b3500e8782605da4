import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { expect, test, type Page } from "@playwright/test";
import pg from "pg";

import { LOCKS_E2E_CLUSTER, UNREACHABLE_CLUSTER } from "../../playwright.config";

// The on-call engineer's first minute, the parts about finding one's way: every page fits a
// 1280x800 window (the violation drill-down of a busy key and the lock story it links to
// included), the board keeps its rows in place while their health changes, /locks lists every
// lock, an unknown consumer, lock or subscription is a 404, "/" focuses the search.
// Subscriptions, locks and the lock's changes go straight into the e2e database as the poller
// writes them (under clusters nothing polls), with a slow poll interval so that they stay current
// while the test runs; the busy key's violations go in through the ingest API.

const MINUTE = 60_000;
const run = randomUUID().slice(0, 6);
const TENANT = `order-${run}`;
const topic = (name: string) => `persistent://${TENANT}/jobs/${name}`;
const SUBSCRIPTIONS = ["sub-a", "sub-b", "sub-c"].map((name) => `${name}-${run}`);
const LOCKS = ["a", "b", "c"].map((name) => `lock:order-${name}-${run}`);
const HOLDER = `pod-${run}`;
/** A key with many violations, all under LOCKS[0]: its drill-down must stay a few screens long. */
const BUSY_KEY = `busy-key-${run}`;
const BUSY_SERVICE = `e2e-busy-${run}`;
const BUSY_VIOLATIONS = 240;

test.use({ viewport: { width: 1280, height: 800 } });

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

let db: pg.Client;
const clusterIds = new Map<string, number>();

async function upsertCluster(name: string, kind: "PULSAR" | "REDIS", adminUrl: string, scope: object): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `insert into cluster (name, kind, admin_url, scope, poll_interval_ms, is_configured, updated_at) values ($1, $2, $3, $4, 120000, true, now())
     on conflict (name) do update set kind = excluded.kind, scope = excluded.scope, poll_interval_ms = excluded.poll_interval_ms returning id`,
    [name, kind, adminUrl, JSON.stringify(scope)],
  );
  const id = rows[0]!.id;
  await db.query(
    `insert into poll_run (cluster_id, started_at, finished_at, duration_ms, cycle_ms, topic_count, resource_count, request_count, error_count, poller_epoch, poller_id)
     values ($1, now() - interval '40 milliseconds', now(), 40, 120000, 3, 3, 1, 0, 1, 'e2e')`,
    [id],
  );
  return id;
}

/** A bearer token for the ingest API, through the real command line. */
function createToken(): string {
  const output = execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/token.ts", "create", "--name", `e2e-fits-${run}`], {
    env: { ...process.env, DATABASE_URL: databaseUrl() },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const token = output.trim().split("\n").pop() ?? "";
  if (!token.startsWith("bat_")) throw new Error(`token:create printed no token: ${output}`);
  return token;
}

/**
 * When LOCKS[0]'s previous hold expired while held, and the busy key's last violation: both older
 * than the violations alert's 5-minute window, so that they have stopped firing it before the next
 * spec runs (tests/e2e/health.spec.ts needs nothing firing).
 */
const EXPIRY_AGO = 15 * MINUTE;
const LAST_VIOLATION_AGO = 12 * MINUTE;

/** The busy key's violations, 7 s apart up to LAST_VIOLATION_AGO: two workers taking turns, each while the other is inside, under LOCKS[0]. */
async function postBusyViolations(baseURL: string, nowMs: number): Promise<void> {
  const events = Array.from({ length: BUSY_VIOLATIONS }, (_, i) => {
    const observedAt = nowMs - LAST_VIOLATION_AGO - (BUSY_VIOLATIONS - 1 - i) * 7_000;
    const [worker, other] = i % 2 === 0 ? ["w1", "w2"] : ["w2", "w1"];
    return {
      id: randomUUID(),
      key: BUSY_KEY,
      counter: 1,
      service: BUSY_SERVICE,
      worker: `${worker}-${run}`,
      observedAt,
      othersInside: [{ worker: `${other}-${run}`, enteredAt: observedAt - 500 }],
      lock: `${LOCKS_E2E_CLUSTER.name}/${LOCKS[0]}`,
    };
  });
  const response = await fetch(new URL("/api/v1/exclusivity-events", baseURL), {
    method: "POST",
    headers: { authorization: `Bearer ${createToken()}`, "content-type": "application/json" },
    body: JSON.stringify(events),
  });
  if (!response.ok) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
}

test.beforeAll(async ({}, testInfo) => {
  // The token command and the ingest of the busy key's violations: over a minute on a loaded machine.
  test.setTimeout(180_000);
  db = new pg.Client({ connectionString: databaseUrl() });
  await db.connect();
  const now = Date.now();
  const pulsarId = await upsertCluster(UNREACHABLE_CLUSTER.name, "PULSAR", UNREACHABLE_CLUSTER.adminUrl, {});
  const redisId = await upsertCluster(LOCKS_E2E_CLUSTER.name, "REDIS", "redis://127.0.0.1:6379", {
    patterns: [
      { match: "lock:*", layout: "token", mustBeHeld: false },
      { match: "leader:*", layout: "redisson", mustBeHeld: true },
    ],
  });
  clusterIds.set("pulsar", pulsarId).set("redis", redisId);
  for (const subscription of SUBSCRIPTIONS) {
    const consumers = [
      {
        name: HOLDER,
        connectedSince: new Date(now - 30 * MINUTE).toISOString(),
        msgRateOut: 1,
        availablePermits: 1000,
        unackedMessages: 0,
        lastConsumedAt: null,
        address: "/127.0.0.1:50000",
        clientVersion: "e2e",
      },
    ];
    await db.query(
      `insert into held_resource (cluster_id, kind, resource_key, tenant, namespace, topic, partition, subscription, subscription_type, holder, holder_since, consumers, backlog, recent_samples, first_seen_at, last_observed_at)
       values ($1, 'PULSAR_SUBSCRIPTION_PARTITION', $2, $3, $4, $5, -1, $6, 'Failover', $7, $8, $9, 0, '[]', $10, now())`,
      [
        pulsarId,
        `${topic(subscription)}|${subscription}|-1`,
        TENANT,
        `${TENANT}/jobs`,
        topic(subscription),
        subscription,
        HOLDER,
        new Date(now - 30 * MINUTE),
        JSON.stringify(consumers),
        new Date(now - 2 * 3_600_000),
      ],
    );
  }
  for (const key of LOCKS) {
    const details = {
      pattern: "lock:*",
      ttlMs: 30_000,
      isSplit: false,
      stats: { tenureMaxTtlMs: 30_000, nearExpiryCount: 0, longestHoldMs: 0 },
      source: { layout: "token" },
    };
    await db.query(
      `insert into held_resource (cluster_id, kind, resource_key, holder, holder_token, holder_since, expires_at, consumers, details, first_seen_at, last_observed_at)
       values ($1, 'REDIS_LOCK', $2, $3, $4, $5, $6, '[]', $7, $8, now())`,
      [redisId, key, HOLDER, `${HOLDER}:1`, new Date(now - EXPIRY_AGO), new Date(now + 10 * MINUTE), JSON.stringify(details), new Date(now - 3_600_000)],
    );
  }
  // LOCKS[0]'s story: its previous holder's hold expired while held, and HOLDER took it.
  const { rows: lock } = await db.query<{ id: string }>("select id from held_resource where cluster_id = $1 and resource_key = $2", [redisId, LOCKS[0]]);
  await db.query(
    `insert into holder_change (cluster_id, resource_id, kind, cause, ending, from_holder, to_holder, old_seen_at, new_seen_at, details, poller_epoch)
     values ($1, $2, 'HOLDER_CHANGED', 'CLIENT', 'EXPIRED', $3, $4, $5, $6, $7, 1)`,
    [
      redisId,
      lock[0]!.id,
      `old-${HOLDER}`,
      HOLDER,
      new Date(now - EXPIRY_AGO - 400),
      new Date(now - EXPIRY_AGO),
      JSON.stringify({
        heldSince: new Date(now - EXPIRY_AGO - 30 * MINUTE).toISOString(),
        expiresAtBefore: new Date(now - EXPIRY_AGO - 900).toISOString(),
        waitersBefore: [],
        waitersAfter: [],
        hint: null,
      }),
    ],
  );
  await postBusyViolations(testInfo.project.use.baseURL!, now);
});

test.afterAll(async () => {
  await db?.query("delete from holder_change where resource_id in (select id from held_resource where resource_key = any($1::text[]))", [LOCKS]);
  await db?.query("delete from held_resource where tenant = $1 or resource_key = any($2::text[])", [TENANT, LOCKS]);
  await db?.end();
});

/** Whether the document is wider than the window (a horizontal scrollbar), and what sticks out. */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; outside: string[] }> {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    outside: [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.getAttribute("class") ?? ""} "${(element.textContent ?? "").slice(0, 40)}"`),
  }));
}

/** How many lines the main navigation's items take (1 unless an item wrapped under the others). */
async function navigationLines(page: Page): Promise<number> {
  return page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link")
    .evaluateAll((links) => new Set(links.map((link) => Math.round(link.getBoundingClientRect().top))).size);
}

/** The subscription names of the board's rows of this run, top to bottom. */
async function boardOrder(page: Page): Promise<string[]> {
  const rows = page.getByRole("treegrid", { name: "Leaders" }).getByRole("row").filter({ hasText: run });
  const indexed = await rows.evaluateAll((elements) => elements.map((e) => ({ index: Number(e.getAttribute("aria-rowindex")), text: e.textContent ?? "" })));
  return indexed.sort((a, b) => a.index - b.index).map((row) => new RegExp(`sub-[abc]-${run}`).exec(row.text)?.[0] ?? row.text);
}

async function lockOrder(page: Page): Promise<string[]> {
  const rows = await page.getByRole("table", { name: "Locks" }).getByRole("row").filter({ hasText: run }).allTextContents();
  return rows.map((text) => new RegExp(`lock:order-[abc]-${run}`).exec(text)?.[0] ?? text);
}

test("board rows keep their order across refreshes while a row's health changes", async ({ page }) => {
  await page.goto(`/?q=${run}`);
  const treegrid = page.getByRole("treegrid", { name: "Leaders" });
  await expect(treegrid.getByRole("row").filter({ hasText: run })).toHaveCount(3);
  await expect(page.getByRole("table", { name: "Locks" }).getByRole("row").filter({ hasText: run })).toHaveCount(3);
  const rowsBefore = await boardOrder(page);
  const locksBefore = await lockOrder(page);
  expect(rowsBefore).toEqual(SUBSCRIPTIONS);
  expect(locksBefore).toEqual(LOCKS);

  // The last subscription loses its consumer (critical) and the last lock's data goes stale:
  // ranked by health, both would jump to the top at the next refresh.
  await db.query("update held_resource set holder = null, holder_since = null, consumers = '[]' where subscription = $1", [SUBSCRIPTIONS[2]]);
  await db.query(
    "update held_resource set stale_since = now(), last_error = 'connect ECONNREFUSED 127.0.0.1:6390', last_error_at = now() where resource_key = $1",
    [LOCKS[2]],
  );
  await expect(treegrid.getByRole("row").filter({ hasText: SUBSCRIPTIONS[2]! })).toContainText("No active consumer", { timeout: 30_000 });
  await expect(page.getByRole("table", { name: "Locks" }).getByRole("row").filter({ hasText: LOCKS[2]! })).toContainText("Stale", { timeout: 30_000 });
  expect(await boardOrder(page)).toEqual(rowsBefore);
  expect(await lockOrder(page)).toEqual(locksBefore);
});

test("the navigation's Locks item opens /locks, which lists every lock Baton observes", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Locks" }).click();
  await expect(page).toHaveURL(/\/locks$/);
  await expect(page.getByRole("heading", { level: 1, name: "Locks" })).toBeVisible();
  const answer = (await (await page.request.get("/api/v1/locks")).json()) as { locks: { key: string; cluster: string }[] };
  expect(answer.locks.map((l) => l.key)).toEqual(expect.arrayContaining(LOCKS));
  const table = page.getByRole("table", { name: "Locks" });
  await expect(table.getByRole("row")).toHaveCount(answer.locks.length + 1);
  for (const lock of answer.locks) await expect(table.getByRole("rowheader").filter({ hasText: lock.key }).first()).toBeVisible();

  // "/" focuses the search, whose words filter the list.
  await page.keyboard.press("/");
  const search = page.getByRole("searchbox");
  await expect(search).toBeFocused();
  await page.keyboard.type(`order-b-${run}`);
  await expect(table.getByRole("row")).toHaveCount(2);
  await table.getByRole("link", { name: LOCKS[1]!, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: LOCKS[1]! })).toBeVisible();
  // One term for the kind, with its source: a Redis lock's TTL as its holder set it.
  const facts = page.getByRole("definition").filter({ hasText: "the lock key's TTL in Redis (PTTL)" });
  await expect(facts).toHaveCount(1);
  await expect(facts).toContainText(/^30 s/);
});

test("an unknown consumer, lock, subscription or cluster answers 404; a known one 200", async ({ page }) => {
  const unknown = [
    `/consumers/${encodeURIComponent(`nobody-${run}`)}`,
    `/locks?${new URLSearchParams({ cluster: LOCKS_E2E_CLUSTER.name, key: `lock:never-${run}` })}`,
    `/locks?${new URLSearchParams({ cluster: `nowhere-${run}`, key: LOCKS[0]! })}`,
    `/subscriptions?${new URLSearchParams({ cluster: UNREACHABLE_CLUSTER.name, topic: topic("never"), subscription: `never-${run}` })}`,
    `/no-such-page-${run}`,
  ];
  for (const path of unknown) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
  }
  for (const path of [`/consumers/${encodeURIComponent(HOLDER)}`, `/locks?${new URLSearchParams({ cluster: LOCKS_E2E_CLUSTER.name, key: LOCKS[0]! })}`]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
  }
});

test("no page is wider than a 1280x800 window, walking every route the app links to", async ({ page }, testInfo) => {
  // Up to 30 pages, each waited on until its network settles: minutes on a loaded machine.
  test.setTimeout(600_000);
  const start = [
    "/",
    "/locks",
    `/locks?${new URLSearchParams({ cluster: LOCKS_E2E_CLUSTER.name, key: LOCKS[0]! })}`,
    `/locks?${new URLSearchParams({ cluster: LOCKS_E2E_CLUSTER.name, pattern: "lock:*" })}`,
    `/subscriptions?${new URLSearchParams({ cluster: UNREACHABLE_CLUSTER.name, topic: topic(SUBSCRIPTIONS[0]!), subscription: SUBSCRIPTIONS[0]! })}`,
    `/consumers/${encodeURIComponent(HOLDER)}`,
    "/violations",
    "/deployments",
    "/alerts",
    "/settings/clusters",
    `/violations/drilldown?${new URLSearchParams({ key: BUSY_KEY, range: "1h" })}`,
  ];
  const queue = [...start];
  // One page per route (path), not every lock's: the first link of each route is enough.
  const seenRoutes = new Set<string>();
  const visited: string[] = [];
  const tooWide: string[] = [];
  const wrappedNavigation: string[] = [];
  while (queue.length > 0 && visited.length < 30) {
    const path = queue.shift()!;
    const route = new URL(path, "http://x").pathname.replace(/\/consumers\/.+/, "/consumers/:name");
    if (seenRoutes.has(`${route}|${path.includes("?") ? new URL(path, "http://x").searchParams.toString().replace(/=[^&]*/g, "") : ""}`)) continue;
    seenRoutes.add(`${route}|${path.includes("?") ? new URL(path, "http://x").searchParams.toString().replace(/=[^&]*/g, "") : ""}`);
    const response = await page.goto(path);
    if (response?.status() !== 200) continue;
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    // Pages fill in after hydration (their queries, the reader's time zone): wait for the network to settle.
    await page.waitForLoadState("networkidle");
    visited.push(path);
    const width = await overflow(page);
    if (width.scrollWidth > width.innerWidth) tooWide.push(`${path}: ${width.scrollWidth} px > ${width.innerWidth} px (${width.outside.join("; ")})`);
    const lines = await navigationLines(page);
    if (lines !== 1) wrappedNavigation.push(`${path}: the navigation takes ${lines} lines`);
    await page.screenshot({ path: testInfo.outputPath(`page-${visited.length}-${route.replace(/\W+/g, "-")}.png`), fullPage: true });
    const links = await page.locator("main a[href^='/'], nav a[href^='/']").evaluateAll((anchors) => anchors.map((a) => a.getAttribute("href")!));
    for (const link of links) if (!link.startsWith("/api/") && !link.startsWith("/auth/")) queue.push(link);
  }
  expect(visited).toEqual(expect.arrayContaining(start));
  // The drill-down's lock story link: the lock's page around the violation, with its changes.
  expect(visited.filter((path) => path.startsWith("/locks?") && path.includes("from="))).toHaveLength(1);
  expect(tooWide).toEqual([]);
  expect(wrappedNavigation).toEqual([]);
});

test("a key with many violations: its drill-down shows a page of them at a time, and its lock's story", async ({ page }, testInfo) => {
  await page.goto(`/violations/drilldown?${new URLSearchParams({ key: BUSY_KEY, range: "1h" })}`);
  await expect(page.getByTestId("drilldown-events")).toHaveText(String(BUSY_VIOLATIONS));
  // The issue saw 11,662 px for such a key: every violation explained at once. A page of each list now.
  const explained = page.getByRole("region", { name: "Violations explained" });
  await expect(explained.getByTestId("violation-explanation")).toHaveCount(10);
  await expect(explained.getByRole("navigation", { name: "Violations pages" })).toContainText(`Violations 1–10 of ${BUSY_VIOLATIONS}`);
  await expect(page.getByTestId("event-table").getByRole("row")).toHaveCount(25 + 1);
  await expect(page.getByRole("navigation", { name: "Events pages" })).toContainText(`Events 1–25 of ${BUSY_VIOLATIONS}`);
  await page.waitForLoadState("networkidle");
  const size = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth }));
  // A figure, not an assertion: pixels depend on fonts; the counts above are what is bounded.
  testInfo.annotations.push({
    type: "drill-down size",
    description: `${BUSY_VIOLATIONS} violations: ${size.height} px tall, ${size.width} px wide at 1280x800`,
  });
  console.log(`[fits-and-finds] drill-down of a key with ${BUSY_VIOLATIONS} violations: ${size.height} px tall, ${size.width} px wide at 1280x800`);
  expect(size.width).toBeLessThanOrEqual(1280);
  await page.screenshot({ path: testInfo.outputPath("drilldown-busy.png"), fullPage: true });

  // Its lock's story: the lock page around the violation, with the expiry while held.
  await explained.getByTestId("lock-story-link").first().click();
  await expect(page.getByRole("heading", { level: 1, name: LOCKS[0]! })).toBeVisible();
  await expect(page).toHaveURL(/from=/);
  await expect(page.getByText(`expired while held by old-${HOLDER}`).first()).toBeVisible();
});

test("the theme follows the browser's light or dark preference; the refresh picker pauses and remembers it", async ({ page }, testInfo) => {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`/?q=${run}`);
  await expect(page.getByRole("treegrid", { name: "Leaders" }).getByRole("row").filter({ hasText: run }).first()).toBeVisible();
  expect(await background()).toBe("rgb(246, 248, 250)");
  await page.screenshot({ path: testInfo.outputPath("board-light.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await background()).toBe("rgb(15, 20, 25)");

  const refresh = page.getByRole("group", { name: "Refresh" });
  await refresh.getByRole("button", { name: "Pause" }).click();
  await expect(refresh.getByRole("button", { name: "Resume" })).toHaveAttribute("aria-pressed", "true");
  await expect(refresh.getByRole("combobox")).toHaveValue("paused");
  await page.reload();
  await expect(page.getByRole("group", { name: "Refresh" }).getByRole("combobox")).toHaveValue("paused");
  await page.getByRole("group", { name: "Refresh" }).getByRole("combobox").selectOption("30s");
  await expect(page.getByRole("group", { name: "Refresh" }).getByRole("button", { name: "Pause" })).toBeVisible();
  await expect(page.getByText(/^Times in \S+/)).toBeVisible();
});
