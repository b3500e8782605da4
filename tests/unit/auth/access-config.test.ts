import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "@/lib/config";

const SECRET = "s".repeat(40);
const OIDC = {
  BATON_OIDC_ISSUER: "https://sso.example.com/realms/ops/",
  BATON_OIDC_CLIENT_ID: "baton",
  BATON_OIDC_CLIENT_SECRET: "client-secret-value",
  BATON_PUBLIC_URL: "https://baton.example.com",
  BATON_SESSION_SECRET: SECRET,
  BATON_OIDC_ALLOWED_DOMAINS: "Example.com, @ops.example.com",
};

const dir = mkdtempSync(path.join(os.tmpdir(), "baton-access-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("\n");
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("access settings", () => {
  it("are open by default, and BATON_ACCESS_CONTROL_REQUIRED refuses to start open", () => {
    expect(loadConfig({}).access.method).toEqual({ mode: "open" });
    expect(loadConfig({ BATON_ACCESS_CONTROL_REQUIRED: "false" }).access.method.mode).toBe("open");
    expect(errorOf({ BATON_ACCESS_CONTROL_REQUIRED: "true" })).toMatch(/BATON_ACCESS_CONTROL_REQUIRED is true but no access control is configured/);
    expect(errorOf({ BATON_ACCESS_CONTROL_REQUIRED: "yes" })).toMatch(/BATON_ACCESS_CONTROL_REQUIRED must be "true" or "false"/);
    expect(loadConfig({ ...OIDC, BATON_ACCESS_CONTROL_REQUIRED: "true" }).access.method.mode).toBe("oidc");
  });

  it("read sign-in with OpenID Connect: issuer, client, secret from a file, allow-list", () => {
    const secretFile = path.join(dir, "client-secret");
    writeFileSync(secretFile, "from-a-file\n");
    const { BATON_OIDC_CLIENT_SECRET: _inline, ...rest } = OIDC;
    const access = loadConfig({ ...rest, BATON_OIDC_CLIENT_SECRET_FILE: secretFile, BATON_OIDC_ALLOWED_GROUPS: "baton-users,sre" }).access;
    expect(access.method).toEqual({
      mode: "oidc",
      issuer: "https://sso.example.com/realms/ops",
      clientId: "baton",
      clientSecret: "from-a-file",
      publicUrl: "https://baton.example.com",
      scopes: "openid email profile",
      allowedDomains: ["example.com", "ops.example.com"],
      allowedGroups: ["baton-users", "sre"],
      groupsClaim: "groups",
    });
    expect(access.sessionMaxAgeSeconds).toBe(12 * 3600);
  });

  it.each([
    [{ BATON_OIDC_CLIENT_ID: "" }, /BATON_OIDC_CLIENT_ID is required/],
    [{ BATON_OIDC_CLIENT_SECRET: "" }, /BATON_OIDC_CLIENT_SECRET or BATON_OIDC_CLIENT_SECRET_FILE is required/],
    [{ BATON_PUBLIC_URL: "" }, /BATON_PUBLIC_URL is required/],
    [{ BATON_PUBLIC_URL: "baton.example.com" }, /BATON_PUBLIC_URL must be an http/],
    [{ BATON_SESSION_SECRET: "" }, /BATON_SESSION_SECRET or BATON_SESSION_SECRET_FILE is required/],
    [{ BATON_OIDC_ALLOWED_DOMAINS: "" }, /BATON_OIDC_ALLOWED_DOMAINS or BATON_OIDC_ALLOWED_GROUPS is required/],
    [{ BATON_OIDC_ISSUER: "sso" }, /BATON_OIDC_ISSUER must be an http/],
    [{ BATON_AUTH_PROXY_HEADER: "X-Email", BATON_AUTH_TRUSTED_PROXIES: "10.0.0.1" }, /not both/],
    [{ BATON_OIDC_CLIENT_SECRET_FILE: "/nonexistent/secret" }, /set BATON_OIDC_CLIENT_SECRET or BATON_OIDC_CLIENT_SECRET_FILE, not both/],
  ])("refuse an incomplete sign-in configuration in one line (%o)", (change, pattern) => {
    expect(errorOf({ ...OIDC, ...change })).toMatch(pattern);
  });

  it("never repeat a secret in an error", () => {
    const message = errorOf({ ...OIDC, BATON_SESSION_SECRET: "short-secret-value" });
    expect(message).toMatch(/BATON_SESSION_SECRET must be at least 32 characters/);
    expect(message).not.toContain("short-secret-value");
  });

  it("read the trusted-proxy mode: header and proxy addresses", () => {
    expect(loadConfig({ BATON_AUTH_PROXY_HEADER: "X-Forwarded-Email", BATON_AUTH_TRUSTED_PROXIES: "10.0.0.5, 192.168.0.0/16,::1" }).access.method).toEqual({
      mode: "proxy",
      userHeader: "x-forwarded-email",
      trustedProxies: ["10.0.0.5", "192.168.0.0/16", "::1"],
    });
    expect(errorOf({ BATON_AUTH_PROXY_HEADER: "X-Forwarded-Email" })).toMatch(/BATON_AUTH_TRUSTED_PROXIES is required/);
    expect(errorOf({ BATON_AUTH_PROXY_HEADER: "X Email", BATON_AUTH_TRUSTED_PROXIES: "10.0.0.5" })).toMatch(/BATON_AUTH_PROXY_HEADER must be a header name/);
    expect(errorOf({ BATON_AUTH_PROXY_HEADER: "X-Email", BATON_AUTH_TRUSTED_PROXIES: "proxy.internal" })).toMatch(
      /BATON_AUTH_TRUSTED_PROXIES must list IP addresses or CIDR ranges/,
    );
  });
});
