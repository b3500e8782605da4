import { randomUUID } from "node:crypto";

import { expect, type Page, test } from "@playwright/test";
import { Redis } from "ioredis";

import { LEADERS_E2E_BROKER, LIVE_LOCKS_E2E_CLUSTER, LIVE_LOCKS_E2E_PREFIX } from "../../playwright.config";
import { type E2eBroker, startE2eBroker } from "../support/e2e-broker-process";

// One verdict, and findings with a lifetime, end to end on real parts: a lock on the machine's
// Redis that the worker beside the web app polls (playwright.config.ts: LIVE_LOCKS_E2E_CLUSTER).
// sched-a takes it and stalls past its TTL, so Redis expires it while held; sched-b takes it
// and keeps renewing it, as a lock client's watchdog does. The real poller records the expiry,
// the real evaluator fires the alert and resolves it; the header, the Alerts menu item, the
// lock's card and the Alerts page must all say so, and say the same.
//
// "Nothing firing" needs every cluster the worker watches to answer: an unreachable one raises
// the stale alert (also with no resource to flag). The worker also watches the leaders e2e's
// broker (playwright.config.ts), so this test runs that broker while it checks the verdict.

const run = randomUUID().slice(0, 6);
const KEY = `${LIVE_LOCKS_E2E_PREFIX}scheduler-${run}`;
const SCHED_A = `sched-a-${run}`;
const SCHED_B = `sched-b-${run}`;
const A_TTL_MS = 2_000;
/** sched-b's TTL: the recovery hold is one TTL (BATON_RECOVERED_AFTER_SECONDS unset). */
const B_TTL_MS = 30_000;
const lockPage = `/locks?${new URLSearchParams({ cluster: LIVE_LOCKS_E2E_CLUSTER.name, key: KEY })}`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

let redis: Redis;
let renewal: NodeJS.Timeout | undefined;
let broker: E2eBroker | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  broker = await startE2eBroker({ webPort: LEADERS_E2E_BROKER.webPort, brokerPort: LEADERS_E2E_BROKER.brokerPort });
  redis = new Redis(LIVE_LOCKS_E2E_CLUSTER.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});

test.afterAll(async () => {
  clearInterval(renewal);
  await redis?.del(KEY);
  await redis?.quit();
  await broker?.close();
});

/** The verdict's headline, with what it lists as firing (pending alerts left out: they do not fire yet). */
async function whatFires(page: Page): Promise<string> {
  const response = await page.request.get("/api/health");
  const report = (await response.json()) as { verdict?: { headline: string; problems: string[] } };
  if (!report.verdict) return `no verdict (HTTP ${response.status()})`;
  const firing = report.verdict.problems.filter((problem) => !/ pending \(/.test(problem));
  return firing.length === 0 ? report.verdict.headline : `${report.verdict.headline}: ${firing.join("; ")}`;
}

/** The lock's holder as Baton's read API tells it (null: free or not seen yet). */
async function holderInBaton(page: Page): Promise<string | null> {
  const response = await page.request.get(`/api/v1/locks?${new URLSearchParams({ cluster: LIVE_LOCKS_E2E_CLUSTER.name, q: KEY })}`);
  if (!response.ok()) return null;
  const board = (await response.json()) as { locks: { key: string; holder: string | null }[] };
  return board.locks.find((lock) => lock.key === KEY)?.holder ?? null;
}

test("a lock that expired while held fires in the header and the Alerts item, then returns to OK once its new holder has held it one TTL, and its alert resolves", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const health = page.getByTestId("health-status");
  const alertsItem = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Alerts/ });

  // Before: nothing fires (another spec's alerts may still be resolving: wait, bounded). Polled
  // through the verdict's problems, so that a failure names what still fires.
  await expect.poll(() => whatFires(page), { timeout: 120_000, intervals: [1_000] }).toBe("Nothing firing");
  await page.goto("/alerts");
  await expect(health).toHaveText("Nothing firing", { timeout: 30_000 });
  await expect(page.getByRole("link", { name: /^Nothing firing: / })).toHaveAttribute("href", "/alerts");
  await expect(page.getByTestId("alerts-firing-count")).toHaveCount(0);

  // sched-a holds it, and Baton sees it.
  await redis.set(KEY, SCHED_A, "PX", A_TTL_MS);
  await expect.poll(() => holderInBaton(page), { timeout: 30_000, intervals: [250] }).toBe(SCHED_A);
  // sched-a stalls past its TTL: Redis expires the key while sched-a still believes it holds it.
  await expect.poll(() => redis.exists(KEY), { timeout: 10_000, intervals: [100] }).toBe(0);
  await redis.set(KEY, SCHED_B, "PX", B_TTL_MS);
  renewal = setInterval(() => void redis.pexpire(KEY, B_TTL_MS), 5_000);

  // While the finding is active: the card says Critical, with the time it happened; the header
  // and the Alerts item count the firing alert.
  await page.goto(lockPage);
  const now = page.getByRole("region", { name: "Now" });
  await expect(now.getByRole("heading", { level: 3 })).toContainText("Critical", { timeout: 30_000 });
  await expect(now).toContainText(new RegExp(`Expired while held by ${escapeRegExp(SCHED_A)} at \\d\\d:\\d\\d`));
  await expect(now).toContainText(
    new RegExp(
      `${escapeRegExp(SCHED_B)} holds it now: ${escapeRegExp(SCHED_A)} may still be acting \\(recovered once ${escapeRegExp(SCHED_B)} has held it \\d+ s; \\d+ s so far\\)`,
    ),
  );
  await expect.poll(() => whatFires(page), { timeout: 25_000, intervals: [1_000] }).toMatch(/^1 critical firing: critical: Lock expired while held: /);
  await expect(health).toHaveText("1 critical firing", { timeout: 25_000 });
  await expect(page.getByRole("link", { name: new RegExp(`^1 critical firing: critical: Lock expired while held: ${escapeRegExp(KEY)}`) })).toHaveAttribute(
    "href",
    "/alerts",
  );
  await expect(alertsItem).toHaveAccessibleName(/^Alerts\s*1 firing$/);
  await page.screenshot({ path: "docs/screenshots/health-firing.png" });

  // sched-b has held it for one TTL: the lock is OK again, its card says what happened and when,
  // the header turns green and the Alerts item's count goes.
  await expect(now.getByRole("heading", { level: 3 })).toContainText("OK", { timeout: 60_000 });
  await expect(now.getByRole("list", { name: "Recovered" })).toContainText(
    new RegExp(
      `^recovered: expired while held by ${escapeRegExp(SCHED_A)} at \\d\\d:\\d\\d:\\d\\d UTC, taken over by ${escapeRegExp(SCHED_B)} (within a second|\\d+ s later)$`,
    ),
  );
  await expect(now).not.toContainText("Expired while held by");
  await expect.poll(() => whatFires(page), { timeout: 30_000, intervals: [1_000] }).toBe("Nothing firing");
  await expect(health).toHaveText("Nothing firing", { timeout: 30_000 });
  await expect(alertsItem).toHaveAccessibleName("Alerts");
  await page.screenshot({ path: "docs/screenshots/health-recovered.png" });

  // The alert resolved: the Alerts page lists it as resolved, with its history.
  await alertsItem.click();
  const resolved = page.getByRole("table", { name: "Resolved alerts" }).getByRole("row").filter({ hasText: KEY });
  await expect(resolved).toHaveCount(1);
  await expect(resolved.getByRole("list", { name: "State history" }).getByRole("listitem")).toHaveText([/^Pending /, /^Firing /, /^Resolved /]);
  await expect(page.getByRole("table", { name: "Firing and pending alerts" }).getByRole("row").filter({ hasText: KEY })).toHaveCount(0);
});
