import { expect, test } from "@playwright/test";

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
});

test("the sign-in page says there is nothing to sign in to", async ({ page }) => {
  await page.goto("/sign-in");
  await expect(page.getByText("there is nothing to sign in to")).toBeVisible();
  await page.getByRole("link", { name: "Continue to Baton" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
});
