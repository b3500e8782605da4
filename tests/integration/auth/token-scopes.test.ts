import { spawn } from "node:child_process";
import path from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { createApiToken } from "@/lib/auth/create-api-token";
import { listApiTokens } from "@/lib/auth/list-api-tokens";
import { requireBearerToken } from "@/lib/auth/require-bearer-token";
import { verifyApiToken } from "@/lib/auth/verify-api-token";
import { ApiError } from "@/lib/http/api-error";
import { openDb, uniquePrefix } from "@/tests/integration/ingest/ingest-test-kit";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

const db = openDb();
afterAll(() => db.$disconnect());

function withBearer(token: string): Request {
  return new Request("http://baton.test/api/v1/exclusivity-events", { method: "POST", headers: { authorization: `Bearer ${token}` } });
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe("token scopes", () => {
  it("let an ingest token write but not read, a read token read but not write, and a token with both do both", async () => {
    const ingest = await createApiToken(db, uniquePrefix("ingest"));
    const read = await createApiToken(db, uniquePrefix("read"), ["read"]);
    const both = await createApiToken(db, uniquePrefix("both"), ["ingest", "read"]);
    expect([ingest.scopes, read.scopes, both.scopes]).toEqual([["ingest"], ["read"], ["ingest", "read"]]);

    expect(await verifyApiToken(db, ingest.token, "ingest")).toMatchObject({ name: ingest.name });
    expect(await verifyApiToken(db, ingest.token, "read")).toBeNull();
    expect(await verifyApiToken(db, read.token, "read")).toMatchObject({ name: read.name });
    expect(await verifyApiToken(db, read.token, "ingest")).toBeNull();
    expect(await verifyApiToken(db, both.token, "read")).toMatchObject({ name: both.name });
    expect(await verifyApiToken(db, both.token, "ingest")).toMatchObject({ name: both.name });

    // The ingest routes' check: a read-only token gets the 401 an unknown one gets.
    expect(await statusOf(requireBearerToken(withBearer(ingest.token), db))).toBe(200);
    expect(await statusOf(requireBearerToken(withBearer(read.token), db))).toBe(401);
    expect(await statusOf(requireBearerToken(withBearer(read.token), db, "read"))).toBe(200);

    const listed = await listApiTokens(db);
    expect(listed.find((token) => token.name === read.name)?.scopes).toEqual(["read"]);
  });

  it("keep tokens made before scopes existed as ingest tokens", async () => {
    const name = uniquePrefix("legacy");
    const { token } = await createApiToken(db, name);
    // As the migration leaves an old row: the column's default.
    await db.$executeRaw`UPDATE api_token SET scopes = DEFAULT WHERE name = ${name}`;
    expect(await verifyApiToken(db, token, "ingest")).toMatchObject({ name });
    expect(await verifyApiToken(db, token, "read")).toBeNull();
  });
});

function runCli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

describe("npm run token:create -- --scope", () => {
  it("creates a read token and lists every token with its scopes", async () => {
    const name = uniquePrefix("cli-read");
    const created = await runCli("create", "--name", name, "--scope", "read");
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`created token "${name}" (scopes: read)`);
    const token = created.stdout.trim();
    expect(await verifyApiToken(db, token, "read")).toMatchObject({ name });
    expect(await verifyApiToken(db, token, "ingest")).toBeNull();

    const listed = await runCli("list");
    const line = listed.stdout.split("\n").find((l) => l.startsWith(`${name} `));
    expect(line).toMatch(new RegExp(`^${name} +bat_\\S+\\.\\.\\. +read +`));
    expect(listed.stdout).not.toContain(token);
  });

  it.each([
    [["create", "--name", "x", "--scope", "admin"], /^token: invalid scope "admin": use "ingest", "read" or "ingest,read"/],
    [["create", "--name", "x", "--scope", "read,read"], /^token: invalid scope "read,read"/],
  ])("refuses %j in one line", async (args, message) => {
    const result = await runCli(...args);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(message);
  });
});
