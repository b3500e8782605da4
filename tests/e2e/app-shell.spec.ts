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
