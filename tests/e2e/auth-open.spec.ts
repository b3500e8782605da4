import { expect, test } from "@playwright/test";

import { API_CONTENT_SECURITY_POLICY } from "@/lib/auth/content-security-policy";
import { startBatonWeb } from "@/tests/support/baton-web";
import { HOSTILE_RETURN_PATHS } from "@/tests/support/hostile-return-paths";
import { walkRefusedMethods } from "@/tests/support/method-walk";

// Open mode, as a first `npm start` runs (the e2e web server configures no access control):
// everything is served, and every page says that anyone who reaches the port can see it.

test("open mode says so on every page, and the pages pass their own Content-Security-Policy", async ({ page }) => {
  const cspViolations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  for (const path of ["/", "/violations", "/deployments", "/settings/clusters"]) {
    const response = await page.goto(path);
    expect(response?.headers()["content-security-policy"]).toMatch(/'nonce-[^']+'.*frame-ancestors 'none'/);
    await expect(page.getByRole("status", { name: "Access control" })).toContainText("Open to anyone who can reach this port");
  }
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
  await page.screenshot({ path: "docs/screenshots/open-access-notice.png" });
  expect(cspViolations).toEqual([]);
});

test("open mode serves the read API without credentials and ignores a bad bearer token", async ({ request }) => {
  expect((await request.get("/api/v1/leaders")).status()).toBe(200);
  expect((await request.get("/api/v1/leaders", { headers: { authorization: "Bearer bat_not-a-token" } })).status()).toBe(200);
  // The ingest API keeps its tokens in open mode too.
  expect((await request.post("/api/v1/exclusivity-events", { data: {} })).status()).toBe(401);
  const health = await (await request.get("/api/health")).json();
  expect(health).toHaveProperty("clusters");
  const scraped = await request.get("/metrics");
  expect(scraped.status()).toBe(200);
  expect(scraped.headers()["content-security-policy"]).toBe(API_CONTENT_SECURITY_POLICY);
});

test("the sign-in page says there is nothing to sign in to", async ({ page }) => {
  await page.goto("/sign-in");
  await expect(page.getByText("there is nothing to sign in to")).toBeVisible();
  await page.getByRole("link", { name: "Continue to Baton" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
});

test("the sign-in page's 'Continue to Baton' stays on Baton, whatever returnTo says", async ({ page, baseURL }) => {
  // One page load and one navigation for each value.
  test.setTimeout(300_000);
  for (const { label, query, expectedPath } of HOSTILE_RETURN_PATHS) {
    await page.goto(`/sign-in?returnTo=${query}`);
    const link = page.getByRole("link", { name: "Continue to Baton" });
    await expect(link, label).toHaveAttribute("href", expectedPath);
    await link.click();
    await expect(page, label).toHaveURL(`${baseURL}${expectedPath}`);
  }
});

test("open mode refuses TRACE on every path and a public path the methods it does not serve, walking app/", async ({ request }) => {
  test.setTimeout(180_000);
  // Baton's own web server, as `npm start` runs it (TRACE never reaches Next there).
  const baton = await startBatonWeb({ env: { DATABASE_URL: process.env.BATON_TEST_DATABASE_URL ?? "" } });
  try {
    const logged = baton.output().length;
    expect(await walkRefusedMethods(request, baton.url)).toEqual([]);
    expect(baton.output().slice(logged)).toBe("");
  } finally {
    await baton.stop();
  }
});
