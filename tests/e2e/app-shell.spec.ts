import { expect, test } from "@playwright/test";

test.describe("app shell", () => {
  test("shows the health indicator and reaches every page from the navigation", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();

    // The header's verdict is what fires (tests/e2e/health.spec.ts); beside it, the configured
    // clusters Baton cannot reach (one listens on nothing) are counted and named, with why.
    const verdict = page.getByRole("link").filter({ has: page.getByTestId("health-status") });
    await expect(verdict).toHaveAccessibleName(/^(Nothing firing|No worker[^:]*|[^:]* firing): /);
    const unreachable = page.getByRole("link", { name: /^\d+ unreachable: .*unreachable: cannot reach 127\.0\.0\.1:49151: ECONNREFUSED/ });
    await expect(unreachable).toBeVisible();

    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Leaders" })).toHaveAttribute("aria-current", "page");

    await nav.getByRole("link", { name: "Violations" }).click();
    await expect(page).toHaveURL(/\/violations$/);
    await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "No exclusivity-counter events yet" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Violations" })).toHaveAttribute("aria-current", "page");

    await nav.getByRole("link", { name: "Deployments" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Deployments" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "No deployments recorded yet" })).toBeVisible();

    await nav.getByRole("link", { name: "Clusters" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Clusters" })).toBeVisible();
    await expect(page.getByTestId("database-status")).toHaveText("OK");
    const unreachableRow = page.getByRole("row", { name: /unreachable/ });
    await expect(unreachableRow).toContainText("Down");
    await expect(unreachableRow).toContainText("ECONNREFUSED");
    await page.screenshot({ path: "docs/screenshots/clusters.png", fullPage: true });
  });

  test("a refresh that gets no answer says so in words, and when what is shown was read", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
    // The web server stops answering the board's reads (a dropped connection, a restart).
    await page.route("**/api/v1/leaders**", (route) => route.abort("failed"));
    await page.getByRole("button", { name: "Refresh", exact: true }).click();
    const notice = page.locator(".outdated-notice");
    await expect(notice).toContainText("Not current: the board could not be refreshed (Baton's web server did not answer).", { timeout: 60_000 });
    await expect(notice).toContainText(/What is shown was read at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} and may no longer be true\./);
    await expect(notice).not.toContainText("Failed to fetch");
  });

  test("the navigation works from the keyboard", async ({ page }) => {
    await page.goto("/");
    await page.keyboard.press("Tab"); // skip link
    await page.keyboard.press("Tab"); // brand
    await page.keyboard.press("Tab"); // Leaders
    await page.keyboard.press("Tab"); // Locks
    await page.keyboard.press("Tab"); // Violations
    await expect(page.getByRole("link", { name: "Violations" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
  });

  test("GET /api/health answers with the database and each cluster", async ({ request }) => {
    const response = await request.get("/api/health");
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.database).toMatchObject({ status: "ok", isEmbedded: false });
    expect(body.clusters).toContainEqual(expect.objectContaining({ name: "unreachable", status: "down" }));
    expect(body.status).toBe("degraded");
    expect(body.verdict).toMatchObject({ status: expect.stringMatching(/^(ok|warning|critical|unknown)$/), firing: { total: expect.any(Number) } });
  });
});
