import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import pg from "pg";

// Violations, the drill-down and deployments, end to end: deployments and counter events go in
// through the HTTP ingest API (with a bearer token made by `npm run token:create`), leader
// changes straight into the test database (only the poller writes them), and the pages must
// show the classification, the overlapping workers, the trace links and the leader changes.
//
// The web server must run with BATON_TRACE_URL_TEMPLATE = TRACE_URL_TEMPLATE (playwright.config.ts).

const TRACE_URL_TEMPLATE = "http://127.0.0.1:16686/trace/{traceId}";

const MINUTE = 60_000;
const run = randomUUID().slice(0, 8);
const service = `e2e-orders-${run}`;
const otherService = `e2e-billing-${run}`;
const subscription = `e2e-orders-sub-${run}`;
const topic = `persistent://e2e/violations/orders-${run}`;
const tokenName = `e2e-violations-${run}`;
const clusterName = `e2e-violations-${run}`;
const keys = { failover: `e2e-user-failover-${run}`, inside: `e2e-user-rollout-${run}`, open: `e2e-user-open-${run}`, unexplained: `e2e-user-alone-${run}` };
const traceOf = (label: string) => `${label}${run}`.padEnd(32, "0");

function databaseUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) throw new Error("BATON_TEST_DATABASE_URL is not set: run the browser tests with npm test");
  if (!["127.0.0.1", "localhost"].includes(new URL(url).hostname)) throw new Error("the e2e tests refuse a non-local database");
  return url;
}

/** A bearer token through the real command line, as an operator would make one. */
function createToken(): string {
  const output = execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/token.ts", "create", "--name", tokenName], {
    env: { ...process.env, DATABASE_URL: databaseUrl() },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const token = output.trim().split("\n").pop() ?? "";
  if (!token.startsWith("bat_")) throw new Error(`token:create printed no token: ${output}`);
  return token;
}

type Fixture = { nowMs: number; token: string; eventIds: Record<string, string> };

async function post(request: APIRequestContext, token: string, path: string, data: unknown): Promise<unknown> {
  const response = await request.post(path, { data, headers: { authorization: `Bearer ${token}` } });
  expect(response.status(), `${path}: ${await response.text()}`).toBeLessThan(300);
  return response.json();
}

/** Leader changes come from the poller; here they go straight into the database. */
async function insertLeaderChange(client: pg.Client, atMs: number): Promise<void> {
  const { rows: clusters } = await client.query<{ id: number }>(
    "insert into cluster (name, admin_url, poll_interval_ms, is_configured, updated_at) values ($1, 'http://127.0.0.1:49151', 5000, false, now()) returning id",
    [clusterName],
  );
  const clusterId = clusters[0]!.id;
  const { rows: resources } = await client.query<{ id: string }>(
    // Watched for the last hour: the key owners of every violation of the fixture are known.
    `insert into held_resource (cluster_id, kind, resource_key, tenant, namespace, topic, partition, subscription, subscription_type, holder, first_seen_at)
     values ($1, 'PULSAR_SUBSCRIPTION_PARTITION', $2, 'e2e', 'e2e/violations', $3, 2, $4, 'Failover', 'orders-worker-b', $5) returning id`,
    [clusterId, `${topic}|${subscription}|2`, topic, subscription, new Date(atMs - 40 * MINUTE)],
  );
  await client.query(
    `insert into holder_change (cluster_id, resource_id, kind, cause, from_holder, to_holder, old_seen_at, new_seen_at, poller_epoch)
     values ($1, $2, 'HOLDER_CHANGED', 'CLIENT', 'orders-worker-a', 'orders-worker-b', $3, $4, 1)`,
    [clusterId, resources[0]!.id, new Date(atMs - 5_000), new Date(atMs)],
  );
}

const SPLIT_ALERT_FINGERPRINT = `e2e-split-${run}`;
const SPLIT_ALERT_SUMMARY = `Seeded for the split chart: ${service}`;

async function cleanUp(client: pg.Client): Promise<void> {
  await client.query("delete from alert where fingerprint = $1", [SPLIT_ALERT_FINGERPRINT]);
  await client.query("delete from exclusivity_event where service = any($1)", [[service, otherService]]);
  await client.query("delete from violation_minute where service = any($1)", [[service, otherService]]);
  await client.query("delete from deployment where service = any($1)", [[service, otherService]]);
  await client.query("delete from cluster where name = $1", [clusterName]);
  await client.query("delete from api_token where name = $1", [tokenName]);
}

let fixture: Fixture;
let db: pg.Client;

test.describe("violations, drill-down and deployments", () => {
  test.describe.configure({ mode: "serial" });

  test.beforeAll(async ({ request }) => {
    db = new pg.Client({ connectionString: databaseUrl() });
    await db.connect();
    const token = createToken();
    const nowMs = Date.now();
    const at = (minutesAgo: number, plusMs = 0) => new Date(nowMs - minutesAgo * MINUTE + plusMs).toISOString();

    // A finished rollout of the service 40 to 30 minutes ago (inside until 25 minutes ago with
    // the 5-minute grace), one of another service, and one of the service still in progress.
    await post(request, token, "/api/v1/deployments", {
      id: `e2e-${run}-1`,
      service,
      version: "1.4.2",
      environment: "production",
      startedAt: at(40),
      finishedAt: at(30),
      link: "http://127.0.0.1:8000/ci/991",
    });
    await post(request, token, "/api/v1/deployments", {
      id: `e2e-${run}-2`,
      service: otherService,
      version: "7.0.0",
      environment: "staging",
      startedAt: at(21),
      finishedAt: at(19),
    });
    await post(request, token, "/api/v1/deployments", { id: `e2e-${run}-3`, service, version: "1.5.0", environment: "production", startedAt: at(8) });

    const eventIds: Record<string, string> = {};
    const event = (name: string, key: string, worker: string, counter: number, observedAt: string, traceId: string | null = null) => {
      eventIds[name] = `e2e-${run}-${name}`;
      return { id: eventIds[name], key, counter, service, worker, topic: `${topic}-partition-2`, subscription, partition: 2, traceId, observedAt };
    };
    await post(request, token, "/api/v1/exclusivity-events", [
      // Outside any deployment, 10 s after the partition's leader moved from worker a to b: a failover overlap.
      event("failover-entry", keys.failover, "orders-worker-a", 0, at(20), traceOf("aa")),
      event("failover-violation", keys.failover, "orders-worker-b", 1, at(20, 300), traceOf("bb")),
      // Inside the finished rollout.
      event("rollout-entry", keys.inside, "orders-worker-a", 0, at(35), traceOf("cc")),
      event("rollout-violation", keys.inside, "orders-worker-c", 1, at(35, 200), traceOf("dd")),
      // Inside the rollout in progress.
      event("open-violation", keys.open, "orders-worker-c", 2, at(6), traceOf("ee")),
      // Outside, with nothing around it: a real exclusivity failure.
      event("alone-entry", keys.unexplained, "orders-worker-a", 0, at(15)),
      event("alone-violation", keys.unexplained, "orders-worker-d", 1, at(15, 150), traceOf("ff")),
    ]);
    await insertLeaderChange(db, nowMs - 20 * MINUTE - 10_000);
    // A violations alert of the service, firing since the unexplained violation: a marker under its chart.
    await db.query(
      `insert into alert (fingerprint, rule, labels, severity, summary, description, link, state, active_at, fired_at)
       values ($1, 'violations', $2, 'critical', $3, 'seeded by the e2e test', '/violations', 'firing', $4, $4)`,
      [SPLIT_ALERT_FINGERPRINT, JSON.stringify({ alertname: "violations", service }), SPLIT_ALERT_SUMMARY, new Date(nowMs - 15 * MINUTE)],
    );
    fixture = { nowMs, token, eventIds };
  });

  test.afterAll(async () => {
    if (!db) return;
    await cleanUp(db);
    await db.end();
  });

  async function openViolations(page: Page, query = `range=1h&service=${encodeURIComponent(service)}`): Promise<void> {
    await page.goto(`/violations?${query}`);
    await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
  }

  test("the chart shows the violations with the deployments and leads with the causes to act on", async ({ page }) => {
    await openViolations(page);
    // One unexplained violation to act on; the four by cause add up to the total.
    await expect(page.getByTestId("act-count")).toHaveText("1");
    await expect(page.getByTestId("cause-count-rollout")).toHaveText("2");
    await expect(page.getByTestId("cause-count-failover-overlap")).toHaveText("1");
    await expect(page.getByTestId("cause-count-unexplained")).toHaveText("1");
    await expect(page.getByTestId("outside-count")).toHaveText("2");
    await expect(page.getByTestId("inside-count")).toHaveText("2");
    await expect(page.getByTestId("violation-total")).toHaveText("4");
    const chart = page.getByTestId("violation-chart");
    await expect(chart).toBeVisible();
    await expect(chart.locator('[data-testid="deployment-band"]')).toHaveCount(2);
    // Bars stacked per cause, each colour named in the legend with the headline's words.
    for (const cause of ["rollout", "failover-overlap", "unexplained"])
      await expect(chart.locator(`[data-testid="bar-segment"][data-segment="${cause}"]`).first()).toBeVisible();
    await expect(chart.locator('[data-testid="bar-segment"][data-segment="unclassified"]')).toHaveCount(0);
    const legend = page.getByRole("region", { name: "Violations over time" }).getByRole("list", { name: "Legend" });
    await expect(legend.getByTestId("legend-cause")).toHaveText([
      "Two runs at once, seen by the lock's own records",
      "Unexplained",
      "Holder stalled past its lock's TTL",
      "Worker stalled while another took its key",
      "Failover overlap",
      "Rollout",
    ]);
    await expect(legend).toContainText("alert (critical)");

    // Hovering the bucket of the rollout's violation names the deployment: service, version, environment, times.
    const target = chart.locator(`.vio-hover-target[data-start="${Math.floor((fixture.nowMs - 35 * MINUTE) / MINUTE) * MINUTE}"]`);
    await target.hover();
    const tooltip = page.getByTestId("bucket-tooltip");
    await expect(tooltip).toContainText(`${service} 1.4.2`);
    await expect(tooltip).toContainText("(production)");
    await expect(tooltip.locator("dd.vio-inside")).toHaveText("1");

    const keysList = page.getByTestId("top-keys");
    for (const key of Object.values(keys)) await expect(keysList.getByRole("link", { name: key })).toBeVisible();
    const services = page.getByTestId("top-services");
    const row = services.getByRole("row", { name: new RegExp(service) });
    await expect(row.locator("td").nth(0)).toHaveText("4");
    await expect(row.locator("td").nth(1)).toHaveText("2");
    await expect(row.locator("td").nth(2)).toHaveText("2");
    await page.mouse.move(0, 0);
    await page.screenshot({ path: "docs/screenshots/violations.png", fullPage: true });

    // Leader changes on demand, and the split view; both go into the URL.
    await page.getByLabel("Show leader changes").check();
    await expect(chart.locator('[data-testid="leader-change-marker"]')).not.toHaveCount(0);
    await page.getByRole("radio", { name: "Split by service" }).click();
    await expect(page.getByTestId("split-chart")).toHaveCount(1);
    // The service's own chart marks the service's alerts under it.
    const splitMarkers = page.getByTestId("split-chart").getByRole("list", { name: "Alerts in this range" });
    await expect(splitMarkers.getByRole("listitem", { name: new RegExp(`^${SPLIT_ALERT_SUMMARY}: fired `) })).toHaveCount(1);
    await expect(page).toHaveURL(/changes=1/);
    await expect(page).toHaveURL(/mode=split/);
  });

  test("the violations are listed by cause, with their keys' owners", async ({ page, request }) => {
    await openViolations(page);
    const list = page.getByTestId("cause-list");
    await expect(list.getByRole("radio", { name: "Failover overlap (1)" })).toBeVisible();
    await expect(list.getByRole("radio", { name: "Rollout (2)" })).toBeVisible();
    await expect(list.getByRole("radio", { name: "Unexplained (1)" })).toBeVisible();
    await expect(list).not.toContainText("alarming");
    await list.getByRole("radio", { name: /^Rollout/ }).click();
    await expect(page).toHaveURL(/cause=rollout/);
    await expect(list.getByRole("row")).toHaveCount(3);
    await expect(list).not.toContainText(keys.failover);
    await list.getByRole("radio", { name: /^Failover overlap/ }).click();
    await expect(list.getByRole("row")).toHaveCount(2);
    await expect(list.getByRole("row").nth(1)).toContainText("orders-worker-b, partition 2 (orders-worker-a → orders-worker-b)");

    const response = await request.get(`/api/v1/violations/causes?range=1h&service=${encodeURIComponent(service)}&cause=failover-overlap`);
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.counts).toEqual({ "two-hands": 0, rollout: 2, "holder-stalled": 0, "worker-stalled": 0, "failover-overlap": 1, unexplained: 1 });
    expect(body.violations.map((v: { key: string }) => v.key)).toEqual([keys.failover]);
    const bad = await request.get("/api/v1/violations/causes?range=1h&cause=sideways");
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.details.issues[0].field).toBe("cause");
  });

  test("the read API answers the same classification", async ({ request }) => {
    const response = await request.get(`/api/v1/violations/timeline?range=1h&service=${encodeURIComponent(service)}`);
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.totals).toEqual({ violations: 4, inside: 2, outside: 2 });
    const bad = await request.get("/api/v1/violations/timeline?range=2h");
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.details.issues[0].field).toBe("range");
  });

  test("the drill-down of a failover overlap shows the overlapping workers, trace links and the leader change", async ({ page }) => {
    await openViolations(page);
    await page.getByTestId("top-keys").getByRole("link", { name: keys.failover }).click();
    // Titled with the key and its service, led by the key's causes in one sentence.
    await expect(page.getByRole("heading", { level: 1, name: `Key ${keys.failover} · ${service}` })).toBeVisible();
    await expect(page.getByTestId("drilldown-causes")).toHaveText("1 violation: 1 failover overlap.");
    const explanation = page.getByTestId("violation-explanation");
    await expect(explanation).toHaveCount(1);
    await expect(explanation).toHaveAttribute("data-cause", "failover-overlap");
    await expect(explanation.getByTestId("violation-cause")).toHaveText("Failover overlap");
    await expect(explanation).toContainText(`Failover overlap: the leader of ${subscription} partition 2 moved from orders-worker-a to orders-worker-b at `);
    await expect(explanation).toContainText("Nearest leader change: holder changed on partition 2");
    await expect(explanation).toContainText("orders-worker-a → orders-worker-b");
    await expect(explanation).toContainText(
      "orders-worker-b entered while 1 other worker held the key; the last other entry was orders-worker-a, 300 ms earlier.",
    );
    // The key's owner then: partition 2's leader, which moved 10.3 s before the violation.
    await expect(explanation).toContainText(`Key ${keys.failover} is on partition 2; at `);
    await expect(explanation).toContainText(
      `the leader of partition 2 moved from orders-worker-a to orders-worker-b (10 s before the violation); orders-worker-a was still processing ${keys.failover}.`,
    );

    await expect(page.getByTestId("worker-table").getByRole("row")).toHaveCount(3);
    await expect(page.getByTestId("worker-overlaps")).toContainText("orders-worker-b entered while orders-worker-a was inside: once");
    await expect(page.getByTestId("worker-lanes").locator('[data-testid="lane-dot"][data-violation="true"]')).toHaveCount(1);
    await expect(page.getByTestId("leader-change-table")).toContainText("orders-worker-a → orders-worker-b");

    const traceLink = page.getByTestId("event-table").getByRole("link", { name: traceOf("bb") });
    await expect(traceLink).toHaveAttribute("href", TRACE_URL_TEMPLATE.replace("{traceId}", traceOf("bb")));
    await page.screenshot({ path: "docs/screenshots/drilldown.png", fullPage: true });
  });

  test("a violation with nothing around it is unexplained, to investigate first; one in a rollout says which", async ({ page }) => {
    await page.goto(`/violations/drilldown?key=${encodeURIComponent(keys.unexplained)}&range=1h`);
    const alone = page.getByTestId("violation-explanation");
    await expect(alone).toHaveAttribute("data-cause", "unexplained");
    await expect(alone).toContainText("investigate this one first");
    await expect(page.getByTestId("no-leader-changes")).toBeVisible();

    await page.goto(`/violations/drilldown?event=${encodeURIComponent(fixture.eventIds["rollout-violation"]!)}`);
    // An event's drill-down is titled with its key and service, not the event's id.
    await expect(page.getByRole("heading", { level: 1, name: `Key ${keys.inside} · ${service}` })).toBeVisible();
    const rollout = page.getByTestId("violation-explanation");
    await expect(rollout).toHaveAttribute("data-cause", "rollout");
    await expect(rollout).toHaveAttribute("data-focus", "true");
    await expect(rollout).toContainText(`Rollout: ${service} 1.4.2 was being deployed`);
    await expect(rollout).toContainText(`Inside the deployment of ${service} 1.4.2 (production)`);
  });

  test("the deployments page lists the rollouts with the violations each coincided with", async ({ page }) => {
    await page.goto(`/deployments?range=24h&service=${encodeURIComponent(service)}`);
    await expect(page.getByRole("heading", { level: 1, name: "Deployments" })).toBeVisible();
    const rows = page.getByTestId("deployment-row");
    await expect(rows).toHaveCount(2);
    const finished = rows.filter({ hasText: "1.4.2" });
    const open = rows.filter({ hasText: "1.5.0" });
    await expect(open).toContainText("in progress");
    await expect(open.locator("td").last()).toContainText("1");
    await expect(finished.locator("td").last()).toContainText("1");
    await finished.getByRole("button", { name: /Show/ }).click();
    const detail = page.getByTestId("deployment-detail");
    await expect(detail.getByRole("link", { name: keys.inside })).toBeVisible();
    await expect(detail).toContainText("orders-worker-c");
    await page.screenshot({ path: "docs/screenshots/deployments.png", fullPage: true });

    await page.getByLabel("Environment").selectOption("staging");
    await expect(page.getByText("No deployment started in this range with these filters.")).toBeVisible();
  });
});
