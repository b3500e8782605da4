import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadOpenAlerts } from "@/lib/alerts/alert-store";
import { acquireEvaluatorLease, type EvaluatorLease } from "@/lib/alerts/evaluator-lease";
import { readConditions } from "@/lib/alerts/read-conditions";
import { evaluateOnce } from "@/lib/alerts/run-alert-evaluator";
import { type Config, loadConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { readHealthVerdict } from "@/lib/health/read-health-verdict";
import { readPollerStatus } from "@/lib/health/read-poller-status";
import { createTestDb, registerCluster, type RunningPoller, startPoller, waitFor } from "@/tests/support/poller-harness";
import { startRedisServer, stopRedisServers, type TestRedisServer } from "@/tests/support/redis-servers";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// A cluster whose source does not answer, and that has no resource to flag (it never answered):
// the real poller polls a Redis server that is down, on the real tables; the same stale rule
// fires for the cluster, the header's verdict names it, and once the server answers (with no
// lock under the pattern: still no resource) the alert resolves.

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
const clusterName = `unreachable-${run}`;
let db: Db;
let server: TestRedisServer;
let config: Config;
let poller: RunningPoller | undefined;
let lease: EvaluatorLease;

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  // A port of its own, then nothing listening on it until the test restarts the server.
  server = await startRedisServer();
  await server.stop();
  config = loadConfig({
    DATABASE_URL: databaseUrl,
    BATON_CLUSTERS: JSON.stringify([
      {
        kind: "redis",
        name: clusterName,
        url: server.url,
        patterns: [{ match: `baton-test-unreachable-${run}:*` }],
        pollIntervalMs: 500,
        discoveryIntervalMs: 1_000,
        requestTimeoutMs: 1_000,
      },
    ]),
    // Other tests' counter events share this database: only this test's cluster is judged.
    BATON_ALERT_RULES: JSON.stringify({ stale: { forSeconds: 0 }, violations: { enabled: false } }),
  });
  const cluster = config.clusters[0]!;
  poller = startPoller({ databaseUrl, cluster, clusterId: await registerCluster(db, cluster), pollerId: `unreachable-${run}` });
  lease = (await acquireEvaluatorLease({ databaseUrl, evaluatorId: `unreachable-${run}`, retryMs: 200, signal: AbortSignal.timeout(60_000) }))!;
});

afterAll(async () => {
  await poller?.stop();
  await lease?.release();
  await stopRedisServers(server ? [server] : []);
  await db?.$disconnect();
});

const evaluate = () => evaluateOnce({ db, alerts: config.alerts, readConditions: (nowMs) => readConditions(db, config, nowMs) }, lease.epoch, Date.now());
const staleAlert = async () => (await loadOpenAlerts(db)).find((a) => a.labels.alertname === "stale" && a.labels.cluster === clusterName) ?? null;
const resolvedStale = () =>
  db.alert.findMany({ where: { state: "resolved", labels: { path: ["cluster"], equals: clusterName } }, select: { labels: true, resolvedAt: true } });

describe("a cluster whose source does not answer", () => {
  it("raises the stale alert with no resource to flag, shows in the header's verdict, and resolves once it answers", async () => {
    const status = await waitFor(
      async () => (await readPollerStatus(db, [clusterName])).get(clusterName),
      (s) => s?.failingSince != null,
      "the poller to record a cycle that failed and read nothing",
    );
    expect(status!.resourceCount).toBe(0);
    expect(status!.lastError).toMatch(/ECONNREFUSED|connect|refused/i);
    expect(await db.heldResource.count({ where: { cluster: { name: clusterName } } })).toBe(0);

    const fired = await waitFor(
      async () => {
        await evaluate();
        return staleAlert();
      },
      (alert) => alert?.state === "firing",
      "the stale alert to fire",
    );
    expect(fired!.labels).toMatchObject({ alertname: "stale", cluster: clusterName, kind: "redis" });
    expect(fired!.annotations.summary).toBe(`Source stale: ${clusterName}`);
    expect(fired!.annotations.description).toMatch(new RegExp(`^polls of ${clusterName} fail and read nothing since \\d{4}-`));
    // The same evaluated state the header shows.
    const verdict = await readHealthVerdict(db, { isReachable: true, reason: null });
    expect(verdict.staleSources).toContain(clusterName);
    expect(verdict.problems.some((p) => p.startsWith(`warning: Source stale: ${clusterName}`))).toBe(true);
    expect(verdict.status).not.toBe("ok");

    // It answers again (nothing under the pattern: still no resource); the alert resolves.
    await server.restart();
    await waitFor(
      async () => (await readPollerStatus(db, [clusterName])).get(clusterName),
      (s) => s?.failingSince === null && s?.lastErrorCount === 0,
      "a cycle that succeeds",
    );
    await waitFor(
      async () => {
        await evaluate();
        return staleAlert();
      },
      (alert) => alert === null,
      "the stale alert to resolve",
    );
    expect(await resolvedStale()).toEqual([expect.objectContaining({ labels: expect.objectContaining({ alertname: "stale", cluster: clusterName }) })]);
    expect((await readHealthVerdict(db, { isReachable: true, reason: null })).staleSources).not.toContain(clusterName);
  });
});
