import { spawn } from "node:child_process";
import path from "node:path";

import { describe, expect, it } from "vitest";

// `npm start` says how Baton is protected before anything else, and refuses to start open when
// access control is required. The database URL points at a closed port, so that the start stops
// right after the access line (nothing is started or built).

const CLOSED_DATABASE = "postgresql://baton@127.0.0.1:9/baton";

function runStart(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(process.cwd(), "tools", "start.ts")], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "production", DATABASE_URL: CLOSED_DATABASE, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm start and access control", () => {
  it("prints that an unconfigured Baton is open to anyone who can reach its port", async () => {
    const result = await runStart({});
    expect(result.stdout.split("\n")[0]).toBe(
      '[baton] WARNING: no access control is configured: Baton is open to anyone who can reach this port (set BATON_OIDC_ISSUER or BATON_AUTH_PROXY_HEADER; README "Access control")',
    );
  });

  it("starts with one loud line saying what an open Baton told to listen on every interface exposes", async () => {
    const result = await runStart({ BATON_LISTEN_HOST: "0.0.0.0", PORT: "3999" });
    expect(result.stdout.split("\n")[0]).toBe(
      "[baton] WARNING: BATON_LISTEN_HOST=0.0.0.0 with no access control: every lock holder, token prefix, service name and violation Baton knows is readable by anyone who can reach port 3999 on any address of this machine, with no sign-in (set BATON_OIDC_ISSUER or BATON_AUTH_PROXY_HEADER, or unset BATON_LISTEN_HOST to keep Baton on this machine)",
    );
    expect(result.stdout).not.toMatch(/no access control is configured/);
  });

  it("refuses to start open when BATON_ACCESS_CONTROL_REQUIRED is true", async () => {
    const result = await runStart({ BATON_ACCESS_CONTROL_REQUIRED: "true" });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim()).toBe(
      "Baton cannot start: Invalid configuration: BATON_ACCESS_CONTROL_REQUIRED is true but no access control is configured: set BATON_OIDC_ISSUER (sign-in) or BATON_AUTH_PROXY_HEADER (trusted proxy)",
    );
  });

  it("names the configured mode, and never the secrets", async () => {
    const result = await runStart({
      BATON_ACCESS_CONTROL_REQUIRED: "true",
      BATON_OIDC_ISSUER: "https://sso.example.com/realms/ops",
      BATON_OIDC_CLIENT_ID: "baton",
      BATON_OIDC_CLIENT_SECRET: "client-secret-never-printed",
      BATON_PUBLIC_URL: "https://baton.example.com",
      BATON_SESSION_SECRET: "session-secret-never-printed-0123456789",
      BATON_OIDC_ALLOWED_DOMAINS: "example.com",
      BATON_OIDC_ALLOWED_GROUPS: "sre",
    });
    expect(result.stdout.split("\n")[0]).toBe("[baton] access control: sign-in with https://sso.example.com/realms/ops (allowed: @example.com, group sre)");
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/never-printed/);
  });
});
