import { spawnSync } from "node:child_process";

import { describe, expect, it } from "vitest";

import { findFreePort } from "@/tools/free-port";

/** Runs `npm start`'s entry with the given environment; returns its exit code and output. */
function start(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "tools/start.ts"], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "production", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

describe("npm start refuses to start on bad configuration", () => {
  it.each([
    [{ PORT: "eighty" }, /^Baton cannot start: Invalid configuration: PORT .*\(got "eighty"\)$/],
    [{ BATON_CLUSTERS: '[{"name":"x","adminUrl":"nope"}]' }, /^Baton cannot start: Invalid configuration: BATON_CLUSTERS\[0\]\.adminUrl must be an http/],
    [{ DATABASE_URL: "not-a-url" }, /^Baton cannot start: Invalid configuration: DATABASE_URL must be a postgresql:\/\//],
    [
      { BATON_LISTEN_HOST: "not a host!" },
      /^Baton cannot start: Invalid configuration: BATON_LISTEN_HOST must be an IP address .* or a host name \(got "not a host!"\)$/,
    ],
  ])("%j: one line, exit 1", (env, pattern) => {
    const result = start(env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr.split("\n")).toHaveLength(1);
  });

  it("a DATABASE_URL nothing answers: one line naming the server, no stack trace", async () => {
    const port = await findFreePort();
    const result = start({ DATABASE_URL: `postgresql://baton:secret@127.0.0.1:${port}/baton` });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `Baton cannot start: DATABASE_URL: cannot connect to PostgreSQL at postgresql://baton:***@127.0.0.1:${port}/baton: connection refused (is the server running?)`,
    );
  });
});
