import { expect, test } from "@playwright/test";

import { type BatonWeb, startBatonWeb } from "@/tests/support/baton-web";
import { walkRefusedMethods } from "@/tests/support/method-walk";

// Behind a trusted proxy (oauth2-proxy, Cloudflare Access...): the user comes from a header,
// believed only when the TCP peer is a configured proxy address. The test's requests come from
// 127.0.0.1: one server trusts that address, one trusts another, and one is plain `next start`,
// which cannot tell Baton the peer address and so must believe no one.

const databaseUrl = process.env.BATON_TEST_DATABASE_URL ?? "";
const HEADER = "X-Forwarded-Email";

let trusting: BatonWeb;
let distrusting: BatonWeb;
let plainNext: BatonWeb;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const env = { DATABASE_URL: databaseUrl, BATON_AUTH_PROXY_HEADER: HEADER };
  trusting = await startBatonWeb({ env: { ...env, BATON_AUTH_TRUSTED_PROXIES: "10.20.0.0/16, 127.0.0.1" } });
  distrusting = await startBatonWeb({ env: { ...env, BATON_AUTH_TRUSTED_PROXIES: "10.20.0.7" } });
  plainNext = await startBatonWeb({ env: { ...env, BATON_AUTH_TRUSTED_PROXIES: "127.0.0.1" }, isPlainNext: true });
});

test.afterAll(async () => {
  await Promise.all([trusting?.stop(), distrusting?.stop(), plainNext?.stop()]);
});

test("the proxy's user is signed in: the board shows who, without a sign-out of Baton's own", async ({ browser }) => {
  const context = await browser.newContext({ extraHTTPHeaders: { [HEADER]: "grace@example.com" } });
  const page = await context.newPage();
  await page.goto(`${trusting.url}/`);
  await expect(page.getByRole("heading", { level: 1, name: "Leaders" })).toBeVisible();
  await expect(page.getByText("Signed in as")).toContainText("grace@example.com");
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  await expect(page.getByText("Open to anyone who can reach this port")).toHaveCount(0);
  expect((await page.request.get(`${trusting.url}/api/v1/leaders`)).status()).toBe(200);
  await context.close();
});

test("without the header, or from an address that is not a trusted proxy, nothing is served", async ({ request }) => {
  const cases: Array<[string, BatonWeb, Record<string, string>]> = [
    ["no header from the trusted proxy", trusting, {}],
    ["an empty header", trusting, { [HEADER]: " " }],
    ["the header from an untrusted address", distrusting, { [HEADER]: "grace@example.com" }],
    // The client forges the peer address and x-forwarded-for: the server writes the real peer over the first, and ignores the second.
    ["a forged peer address", distrusting, { [HEADER]: "grace@example.com", "x-baton-peer-address": "10.20.0.7", "x-forwarded-for": "10.20.0.7" }],
    ["plain next start, which cannot know the peer", plainNext, { [HEADER]: "grace@example.com", "x-baton-peer-address": "127.0.0.1" }],
  ];
  for (const [label, server, headers] of cases) {
    const api = await request.get(`${server.url}/api/v1/leaders`, { headers });
    expect(api.status(), label).toBe(401);
    expect((await api.json()).error.code, label).toBe("unauthenticated");
    const page = await request.get(`${server.url}/`, { headers, maxRedirects: 0 });
    expect(page.status(), label).toBe(307);
    expect(page.headers().location, label).toBe("/sign-in?returnTo=%2F");
  }
  // The sign-in page explains rather than offering a sign-in Baton cannot do here.
  const signIn = await request.get(`${distrusting.url}/sign-in`);
  expect(await signIn.text()).toContain("behind a sign-in proxy");
});

test("TRACE is refused on every path and a public path refuses the methods it does not serve, with or without the proxy's user", async ({ request }) => {
  const logged = trusting.output().length;
  expect(await walkRefusedMethods(request, trusting.url)).toEqual([]);
  const signedIn = await request.fetch(`${trusting.url}/api/health`, { method: "POST", headers: { [HEADER]: "grace@example.com" } });
  expect(signedIn.status()).toBe(405);
  expect(signedIn.headers().allow).toBe("GET, HEAD");
  expect(trusting.output().slice(logged)).toBe("");
});
