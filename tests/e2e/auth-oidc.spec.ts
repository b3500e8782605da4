import { createHash } from "node:crypto";

import { expect, type Page, test } from "@playwright/test";
import { EncryptJWT } from "jose";

import { routeKind } from "@/lib/auth/access-rules";
import { API_CONTENT_SECURITY_POLICY } from "@/lib/auth/content-security-policy";
import { type BatonWeb, createTokenWithCli, startBatonWeb } from "@/tests/support/baton-web";
import { concretePath, listAppRoutes } from "@/tests/support/app-routes";
import { HOSTILE_RETURN_PATHS } from "@/tests/support/hostile-return-paths";
import { walkRefusedMethods } from "@/tests/support/method-walk";
import { startOidcProvider, type TestOidcProvider } from "@/tests/support/oidc-provider";
import { findFreePort } from "@/tools/free-port";

// Sign-in with OpenID Connect against a real provider (oidc-provider, started here), in
// Chromium: signed out, every page redirects to sign-in and every read route answers 401.

const SESSION_SECRET = "e2e-session-secret-0123456789-abcdefghij";
const databaseUrl = process.env.BATON_TEST_DATABASE_URL ?? "";

let provider: TestOidcProvider;
let baton: BatonWeb;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await findFreePort();
  provider = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/auth/callback`] });
  baton = await startBatonWeb({
    port,
    env: {
      DATABASE_URL: databaseUrl,
      BATON_OIDC_ISSUER: provider.issuer,
      BATON_OIDC_CLIENT_ID: provider.clientId,
      BATON_OIDC_CLIENT_SECRET: provider.clientSecret,
      BATON_PUBLIC_URL: `http://127.0.0.1:${port}`,
      BATON_SESSION_SECRET: SESSION_SECRET,
      BATON_OIDC_ALLOWED_DOMAINS: "example.com",
      BATON_ACCESS_CONTROL_REQUIRED: "true",
    },
  });
});

test.afterAll(async () => {
  await baton?.stop();
  await provider?.stop();
});

/** The session cookie as Baton seals it, with any payload and expiry. */
async function sealedSession(payload: Record<string, unknown>, expiresAt: number, secret = SESSION_SECRET): Promise<string> {
  const key = createHash("sha256").update(`baton:session:${secret}`, "utf8").digest();
  return new EncryptJWT(payload)
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setIssuedAt(expiresAt - 3600)
    .setExpirationTime(expiresAt)
    .encrypt(key);
}

/** The provider's development login page, then its consent page: signed in as `login`. */
async function signInAtProvider(page: Page, login = "ada@example.com"): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

test("a visitor signs in through the provider's login page, sees the board, signs out and is sent back to sign-in", async ({ page }) => {
  const cspViolations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });

  await page.goto(`${baton.url}/violations?range=1h`);
  await expect(page).toHaveURL(`${baton.url}/sign-in?returnTo=${encodeURIComponent("/violations?range=1h")}`);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to Baton" })).toBeVisible();
  await expect(page.getByText("Open to anyone who can reach this port")).toHaveCount(0);
  await page.screenshot({ path: "docs/screenshots/sign-in.png" });

  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill("ada@example.com");
  await page.locator('input[name="password"]').fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page).toHaveURL(`${baton.url}/violations?range=1h`);
  await expect(page.getByRole("heading", { level: 1, name: "Violations" })).toBeVisible();
  await expect(page.getByText("Signed in as")).toContainText("ada@example.com");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Leaders" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();

  const session = (await page.context().cookies(baton.url)).find((cookie) => cookie.name === "baton_session");
  expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  expect(session!.value).not.toContain("ada");
  // The browser's session reads the API too.
  expect((await page.request.get(`${baton.url}/api/v1/leaders`)).status()).toBe(200);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${baton.url}/sign-in?signedOut=1`);
  await expect(page.getByRole("status").filter({ hasText: "You are signed out." })).toBeVisible();
  expect((await page.context().cookies(baton.url)).some((cookie) => cookie.name === "baton_session")).toBe(false);
  await page.goto(`${baton.url}/`);
  await expect(page).toHaveURL(`${baton.url}/sign-in?returnTo=%2F`);
  expect((await page.request.get(`${baton.url}/api/v1/leaders`)).status()).toBe(401);
  expect(cspViolations).toEqual([]);
});

test("an account outside the allow-list is refused and gets no session", async ({ page }) => {
  await page.goto(`${baton.url}/`);
  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await page.locator('input[name="login"]').fill("eve@elsewhere.org");
  await page.locator('input[name="password"]').fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(`${baton.url}/sign-in?error=not_allowed`);
  await expect(page.getByRole("alert").filter({ hasText: "not allowed to use Baton" })).toBeVisible();
  expect((await page.context().cookies(baton.url)).some((cookie) => cookie.name === "baton_session")).toBe(false);
  expect((await page.request.get(`${baton.url}/api/v1/leaders`)).status()).toBe(401);
});

test("every page and every read route refuses a request without credentials, walking app/", async ({ request }) => {
  const checked: string[] = [];
  const open = new Set(["GET /api/health", "GET /api/openapi.json", "GET /sign-in", "GET /auth/sign-in", "GET /auth/callback", "POST /auth/sign-out"]);
  const ingest = new Set([
    "POST /api/v1/exclusivity-events",
    "POST /api/v1/exclusivity-counts",
    "POST /api/v1/deployments",
    "PATCH /api/v1/deployments/:id",
    "POST /api/v1/deployments/:id/finish",
  ]);
  for (const route of listAppRoutes()) {
    for (const method of route.methods) {
      const key = `${method} ${route.path}`;
      if (open.has(key)) continue;
      const response = await request.fetch(`${baton.url}${concretePath(route.path)}`, {
        method,
        maxRedirects: 0,
        data: method === "GET" ? undefined : "{}",
        headers: { "content-type": "application/json" },
      });
      const body = await response.text();
      if (routeKind(route.path) === "page") {
        expect(response.status(), key).toBe(307);
        expect(response.headers().location, key).toBe(`/sign-in?returnTo=${encodeURIComponent(concretePath(route.path))}`);
      } else if (ingest.has(key)) {
        // Ingest routes keep their own rule: an ingest-scoped bearer token.
        expect(response.status(), key).toBe(401);
        expect(JSON.parse(body).error.code, key).toBe("missing_token");
      } else {
        expect(response.status(), key).toBe(401);
        expect(JSON.parse(body), key).toEqual({ error: { code: "unauthenticated", message: expect.stringContaining("read-scoped token") } });
        expect(response.headers()["www-authenticate"], key).toBe('Bearer realm="baton"');
      }
      // Every API answer, /metrics included, is JSON that no browser may render or frame.
      if (routeKind(route.path) === "api") expect(response.headers()["content-security-policy"], key).toBe(API_CONTENT_SECURITY_POLICY);
      checked.push(key);
    }
  }
  expect(checked).toEqual(
    expect.arrayContaining(["GET /", "GET /api/v1/leaders", "GET /api/v1/violations/key", "GET /api/v1/consumers/:name", "GET /api/v1/deployments"]),
  );
});

test("a forged, expired or foreign session cookie opens nothing; a valid one does", async ({ request }) => {
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string, string, number]> = [
    ["garbage", "not-a-session", 401],
    ["unsigned JWT", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.", 401],
    ["expired", await sealedSession({ sub: "ada" }, now - 60), 401],
    ["sealed under another secret", await sealedSession({ sub: "ada" }, now + 3600, `${SESSION_SECRET}-other`), 401],
    ["valid", await sealedSession({ sub: "ada", email: "ada@example.com" }, now + 3600), 200],
  ];
  for (const [label, cookie, status] of cases) {
    const api = await request.get(`${baton.url}/api/v1/leaders`, { headers: { cookie: `baton_session=${cookie}` } });
    expect(api.status(), label).toBe(status);
    const page = await request.get(`${baton.url}/violations`, { headers: { cookie: `baton_session=${cookie}` }, maxRedirects: 0 });
    expect(page.status(), label).toBe(status === 200 ? 200 : 307);
    if (status !== 200) expect(await page.text(), label).not.toContain("Violations");
  }
  // A client cannot name itself through the proxy's viewer header.
  const spoofed = await request.get(`${baton.url}/violations`, { headers: { "x-baton-viewer": "admin" }, maxRedirects: 0 });
  expect(spoofed.status()).toBe(307);
});

test("read tokens read and cannot write; ingest tokens write and cannot read", async ({ request }) => {
  // Two runs of the token CLI (each a Node process with tsx): over a minute on a loaded machine.
  test.setTimeout(180_000);
  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const read = await createTokenWithCli(databaseUrl, `e2e-read-${suffix}`, "read");
  const ingest = await createTokenWithCli(databaseUrl, `e2e-ingest-${suffix}`, "ingest");
  const get = (token: string) => request.get(`${baton.url}/api/v1/leaders`, { headers: { authorization: `Bearer ${token}` } });
  const post = (token: string) =>
    request.post(`${baton.url}/api/v1/exclusivity-events`, { headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, data: "{}" });
  expect((await get(read)).status()).toBe(200);
  expect((await get(ingest)).status()).toBe(401);
  expect((await get(`${read.slice(0, -2)}xx`)).status()).toBe(401);
  expect((await post(read)).status()).toBe(401);
  // The ingest token is accepted (an empty batch writes nothing).
  expect((await post(ingest)).status()).toBe(200);
  // Prometheus scrapes /metrics with a read token; without one it gets a 401, not the sign-in page.
  const scrape = (headers: Record<string, string>) => request.get(`${baton.url}/metrics`, { headers, maxRedirects: 0 });
  const scraped = await scrape({ authorization: `Bearer ${read}` });
  expect(scraped.status()).toBe(200);
  expect(await scraped.text()).toContain("# TYPE baton_resources gauge");
  expect(scraped.headers()["content-security-policy"]).toBe(API_CONTENT_SECURITY_POLICY);
  expect((await scrape({})).status()).toBe(401);
  expect((await scrape({ authorization: `Bearer ${ingest}` })).status()).toBe(401);
});

test("health says only up or down to the unauthenticated; the API description stays public", async ({ request }) => {
  const health = await request.get(`${baton.url}/api/health`);
  expect(Object.keys(await health.json())).toEqual(["status"]);
  expect((await request.get(`${baton.url}/api/openapi.json`)).status()).toBe(200);
});

test("pages and API answers carry the security headers", async ({ request }) => {
  const page = await request.get(`${baton.url}/sign-in`);
  const headers = page.headers();
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
  expect(headers["x-frame-options"]).toBe("DENY");
  const api = await request.get(`${baton.url}/api/v1/leaders`);
  expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");
  // No secret reaches the log: the server's output names neither the client secret nor a cookie.
  expect(baton.output()).not.toContain(provider.clientSecret);
  expect(baton.output()).not.toContain(SESSION_SECRET);
});

test("TRACE is refused on every path and a public path refuses the methods it does not serve, walking app/", async ({ request }) => {
  const logged = baton.output().length;
  expect(await walkRefusedMethods(request, baton.url)).toEqual([]);
  // A probe is not a fault: nothing in the log.
  expect(baton.output().slice(logged)).toBe("");
  // Signed out, health gives its minimal answer to GET only.
  expect(await (await request.get(`${baton.url}/api/health`)).json()).toEqual({ status: expect.any(String) });
});

test("sign-in sends the visitor back only to a path on Baton, whatever returnTo says", async ({ browser }) => {
  // A whole sign-in at the provider for each value.
  test.setTimeout(480_000);
  for (const { label, query, expectedPath } of HOSTILE_RETURN_PATHS) {
    const context = await browser.newContext();
    const offSite: string[] = [];
    await context.route(
      (url) => url.hostname === "evil.example",
      async (route) => {
        offSite.push(route.request().url());
        await route.abort();
      },
    );
    const page = await context.newPage();
    await page.goto(`${baton.url}/sign-in?returnTo=${query}`);
    const button = page.getByRole("link", { name: "Sign in with single sign-on" });
    await expect(button, label).toHaveAttribute("href", `/auth/sign-in?returnTo=${encodeURIComponent(expectedPath)}`);
    // Straight to the flow's start, as a link in a phishing mail would go.
    await page.goto(`${baton.url}/auth/sign-in?returnTo=${query}`);
    const callback = page.waitForResponse((response) => response.url().startsWith(`${baton.url}/auth/callback`));
    await signInAtProvider(page);
    expect((await callback).headers().location, label).toBe(`${baton.url}${expectedPath}`);
    await expect(page, label).toHaveURL(`${baton.url}${expectedPath}`);
    expect(offSite, label).toEqual([]);
    await context.close();
  }
});

test("signed in, the sign-in page's 'Continue to Baton' stays on Baton, whatever returnTo says", async ({ browser }) => {
  test.setTimeout(300_000);
  const context = await browser.newContext();
  const offSite: string[] = [];
  await context.route(
    (url) => url.hostname === "evil.example",
    async (route) => {
      offSite.push(route.request().url());
      await route.abort();
    },
  );
  const page = await context.newPage();
  await page.goto(`${baton.url}/`);
  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await signInAtProvider(page);
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
  for (const { label, query, expectedPath } of HOSTILE_RETURN_PATHS) {
    await page.goto(`${baton.url}/sign-in?returnTo=${query}`);
    const link = page.getByRole("link", { name: "Continue to Baton" });
    await expect(link, label).toHaveAttribute("href", expectedPath);
    await link.click();
    await expect(page, label).toHaveURL(`${baton.url}${expectedPath}`);
  }
  expect(offSite).toEqual([]);
  await context.close();
});
