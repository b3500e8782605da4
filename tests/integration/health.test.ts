import { describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";
import { checkHealth } from "@/lib/health/check-health";
import { findFreePort } from "@/tools/free-port";
import { startHttpServer } from "@/tests/support/http-server";
import { createTestDb } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

describe("checkHealth", () => {
  it("is ok with a reachable database and no clusters", async () => {
    const report = await checkHealth(loadConfig({ DATABASE_URL: getTestDatabaseUrl() }));
    expect(report).toMatchObject({ status: "ok", database: { status: "ok", reason: null, isEmbedded: false }, clusters: [] });
  });

  it("judges the verdict from the stored alerts and the evaluator's heartbeat, reading the real tables", async () => {
    const db = createTestDb(getTestDatabaseUrl());
    try {
      const report = await checkHealth(loadConfig({ DATABASE_URL: getTestDatabaseUrl() }), db);
      expect(report.verdict.problems.join("; ")).not.toMatch(/does not answer/);
      expect(report.verdict.headline).not.toBe("Database down");
      expect(report.verdict.firing.total).toBe(report.verdict.firing.critical + report.verdict.firing.warning);
    } finally {
      await db.$disconnect();
    }
  });

  it("is down, with the reason, when the database refuses connections", async () => {
    const port = await findFreePort();
    const report = await checkHealth(loadConfig({ DATABASE_URL: `postgresql://baton:pw@127.0.0.1:${port}/baton` }));
    expect(report.status).toBe("down");
    expect(report.database.status).toBe("down");
    expect(report.database.reason).toMatch(/connection refused/);
    expect(report.database.reason).not.toContain("pw@");
  });

  it("is degraded when a cluster is down or refuses the token, and says which and why", async () => {
    const deadPort = await findFreePort();
    const refusing = await startHttpServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ reason: "Authentication required" }));
    });
    try {
      const report = await checkHealth(
        loadConfig({
          DATABASE_URL: getTestDatabaseUrl(),
          BATON_CLUSTERS: JSON.stringify([
            { name: "dead", adminUrl: `http://127.0.0.1:${deadPort}` },
            { name: "locked", adminUrl: refusing.url, token: "wrong" },
          ]),
        }),
      );
      expect(report.status).toBe("degraded");
      expect(report.clusters.find((c) => c.name === "dead")).toMatchObject({ status: "down", reason: expect.stringMatching(/ECONNREFUSED/) });
      expect(report.clusters.find((c) => c.name === "locked")).toMatchObject({ status: "degraded", reason: expect.stringMatching(/refused Baton's token/) });
    } finally {
      await refusing.close();
    }
  });
});
