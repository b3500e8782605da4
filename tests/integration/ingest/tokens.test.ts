import { spawn } from "node:child_process";
import path from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { createApiToken } from "@/lib/auth/create-api-token";
import { listApiTokens } from "@/lib/auth/list-api-tokens";
import { revokeApiToken } from "@/lib/auth/revoke-api-token";
import { hashToken } from "@/lib/auth/token-format";
import { verifyApiToken } from "@/lib/auth/verify-api-token";
import { openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

const db = openDb();
afterAll(() => db.$disconnect());

describe("API tokens", () => {
  it("stores only a hash and a short prefix, and verifies the token until it is revoked", async () => {
    const name = uniquePrefix("ci");
    const created = await createApiToken(db, name);
    expect(created.token).toMatch(/^bat_[A-Za-z0-9_-]{43}$/);
    const row = await db.apiToken.findUniqueOrThrow({ where: { name } });
    expect(row.tokenHash).toBe(hashToken(created.token));
    expect(row.prefix).toBe(created.token.slice(0, 12));
    expect(JSON.stringify(row)).not.toContain(created.token);

    expect(await verifyApiToken(db, created.token)).toEqual({ id: row.id, name });
    expect(await verifyApiToken(db, `${created.token.slice(0, -1)}${created.token.endsWith("A") ? "B" : "A"}`)).toBeNull();

    const revoked = await revokeApiToken(db, name);
    expect(revoked).toMatchObject({ name, wasAlreadyRevoked: false });
    expect(await verifyApiToken(db, created.token)).toBeNull();
    expect(await revokeApiToken(db, name)).toMatchObject({ wasAlreadyRevoked: true, revokedAt: revoked.revokedAt });
    expect((await listApiTokens(db)).find((t) => t.name === name)).toMatchObject({ prefix: row.prefix, revokedAt: revoked.revokedAt });
  });

  it("refuses a taken name, a bad name and revoking an unknown name, in one line each", async () => {
    const name = uniquePrefix("dup");
    await createApiToken(db, name);
    await expect(createApiToken(db, name)).rejects.toThrow(`a token named "${name}" already exists (revoked tokens keep their name); choose another name`);
    await expect(createApiToken(db, "has space")).rejects.toThrow(/invalid token name "has space"/);
    await expect(revokeApiToken(db, uniquePrefix("ghost"))).rejects.toThrow(/no token is named/);
  });

  it("writes last_used_at at most once a minute", async () => {
    const name = uniquePrefix("used");
    const { token } = await createApiToken(db, name);
    await verifyApiToken(db, token);
    const first = (await db.apiToken.findUniqueOrThrow({ where: { name } })).lastUsedAt;
    await verifyApiToken(db, token);
    expect((await db.apiToken.findUniqueOrThrow({ where: { name } })).lastUsedAt).toEqual(first);
  });
});

type CliResult = { code: number | null; stdout: string; stderr: string };

function runCli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(process.cwd(), "tools", "token.ts"), ...args], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: getTestDatabaseUrl() },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run token:*", () => {
  it("creates (printing the token once), lists, refuses a duplicate, and revokes", async () => {
    const name = uniquePrefix("cli");
    const created = await runCli("create", "--name", name);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^bat_[A-Za-z0-9_-]{43}\n$/);
    const token = created.stdout.trim();
    expect(await verifyApiToken(db, token)).toMatchObject({ name });

    const duplicate = await runCli("create", "--name", name);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr.trim().split("\n").at(-1)).toBe(
      `token: a token named "${name}" already exists (revoked tokens keep their name); choose another name`,
    );

    const listed = await runCli("list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME +PREFIX +SCOPES +CREATED +LAST USED +REVOKED/);
    const line = listed.stdout.split("\n").find((l) => l.startsWith(`${name} `));
    expect(line).toContain(`${token.slice(0, 12)}...`);
    expect(listed.stdout).not.toContain(token);

    const revoked = await runCli("revoke", "--name", name);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked token "${name}"\n` });
    expect(await verifyApiToken(db, token)).toBeNull();
  });

  it.each([
    [["create"], /^token: --name is required/],
    [["create", "--name", "bad name"], /^token: invalid token name "bad name"/],
    [["create", "--nmae", "x"], /^token: Unknown option '--nmae'/],
    [["rotate"], /^token: unknown command "rotate"/],
    [["revoke", "--name", "nobody-has-this-name"], /^token: no token is named "nobody-has-this-name"/],
  ])("fails with one line for %j", async (args, message) => {
    const result = await runCli(...args);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(message);
  });
});
