import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { parseAlertsConfig } from "@/lib/alerts/alert-config";
import { EvaluatorDeposedError, loadOpenAlerts, saveEvaluation } from "@/lib/alerts/alert-store";
import type { AlertCondition } from "@/lib/alerts/alert-types";
import { checkAlertmanager } from "@/lib/alerts/check-alertmanager";
import { deliverDueNotifications } from "@/lib/alerts/deliver-notifications";
import { evaluateAlerts } from "@/lib/alerts/evaluate-alerts";
import { acquireEvaluatorLease, type EvaluatorLease } from "@/lib/alerts/evaluator-lease";
import type { Db } from "@/lib/db/client";
import { findFreePort } from "@/tools/free-port";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";
import { createTestDb } from "@/tests/support/poller-harness";
import { getTestDatabaseUrl } from "@/tests/support/test-database";

// The outbox on the real PostgreSQL: a failing receiver is retried with backoff, each attempt
// recorded, until it answers; a deposed evaluator writes nothing.

const databaseUrl = getTestDatabaseUrl();
const run = randomUUID().slice(0, 8);
let db: Db;
let lease: EvaluatorLease;
let receiver: TestServer;
let answers: number[] = [];
let hits = 0;

const config = (url: string) =>
  parseAlertsConfig({
    rulesJson: { "no-holder": { forSeconds: 0 } },
    webhooksJson: [{ name: `flaky-${run}`, url }],
    evaluationIntervalMs: 1_000,
    alertmanagerUrl: null,
    resendSeconds: 60,
    linkBaseUrl: "http://baton",
  });

const condition: AlertCondition = {
  labels: { alertname: "no-holder", cluster: `outbox-${run}`, kind: "redis-lock", resource: "lock:a" },
  severity: "critical",
  annotations: { summary: "No holder", description: "nobody holds lock:a", link: "http://baton/locks" },
};

beforeAll(async () => {
  db = createTestDb(databaseUrl);
  receiver = await startHttpServer((_request, response) => {
    hits++;
    response.writeHead(answers.shift() ?? 204).end();
  });
  const acquired = await acquireEvaluatorLease({ databaseUrl, evaluatorId: `outbox-${run}`, retryMs: 200, signal: AbortSignal.timeout(60_000) });
  lease = acquired!;
});

afterAll(async () => {
  await lease?.release();
  await receiver?.close();
  await db?.$disconnect();
});

/** This run's notifications, oldest first (the first test's firing leads). */
async function mine() {
  return db.alertNotification.findMany({
    where: { alert: { labels: { path: ["cluster"], equals: `outbox-${run}` } } },
    orderBy: { id: "asc" },
    select: {
      id: true,
      attempts: true,
      deliveredAt: true,
      nextAttemptAt: true,
      lastError: true,
      deliveries: { orderBy: { id: "asc" }, select: { at: true, statusCode: true, error: true } },
    },
  });
}

describe("the alert outbox", () => {
  it("retries a failing receiver with growing backoff, records each attempt, and delivers once it answers", async () => {
    const alerts = config(`${receiver.url}/hook`);
    const now = Date.now();
    const evaluation = evaluateAlerts({ nowMs: now, rules: alerts.rules, open: [], conditions: [condition], resendMs: alerts.resendMs });
    await saveEvaluation(db, lease.epoch, evaluation, { alertmanager: false, webhooks: [`flaky-${run}`] }, now);
    expect((await loadOpenAlerts(db)).filter((a) => a.labels.cluster === `outbox-${run}`).map((a) => a.state)).toEqual(["firing"]);

    answers = [503, 500];
    const log: string[] = [];
    await deliverDueNotifications(db, alerts, (line) => log.push(line));
    let [row] = await mine();
    expect(row).toMatchObject({ attempts: 1, deliveredAt: null, lastError: "HTTP 503" });
    expect(row!.nextAttemptAt.getTime() - row!.deliveries[0]!.at.getTime()).toBeGreaterThanOrEqual(1_000);
    expect(log.some((line) => line.includes("failed (attempt 1): HTTP 503"))).toBe(true);

    // Not due yet: nothing is sent. Its due time is moved an hour ahead first: the backoff's
    // second is over before this call on a machine that stalls (the test then saw a second send).
    await db.alertNotification.update({ where: { id: row!.id }, data: { nextAttemptAt: new Date(Date.now() + 3_600_000) } });
    const hitsBefore = hits;
    await deliverDueNotifications(db, alerts, () => undefined);
    expect(hits).toBe(hitsBefore);

    // Its time comes (moved here rather than waited for): attempt 2 fails, backing off twice as long.
    await db.alertNotification.update({ where: { id: row!.id }, data: { nextAttemptAt: new Date(0) } });
    await deliverDueNotifications(db, alerts, () => undefined);
    [row] = await mine();
    const second = row!.deliveries[1]!;
    expect(row).toMatchObject({ attempts: 2, deliveredAt: null, lastError: "HTTP 500" });
    expect(row!.nextAttemptAt.getTime() - second.at.getTime()).toBeGreaterThanOrEqual(2_000);

    await db.alertNotification.update({ where: { id: row!.id }, data: { nextAttemptAt: new Date(0) } });
    await deliverDueNotifications(db, alerts, () => undefined);
    [row] = await mine();
    expect(row!.deliveredAt).not.toBeNull();
    expect(row!.deliveries.map((d) => d.statusCode)).toEqual([503, 500, 204]);
  });

  it("holds a resolution back until its firing is delivered", async () => {
    const alerts = config(`${receiver.url}/hook`);
    const other = { ...condition, labels: { ...condition.labels, resource: "lock:order" } };
    const t0 = Date.now();
    const fired = evaluateAlerts({ nowMs: t0, rules: alerts.rules, open: [], conditions: [other], resendMs: 60_000 });
    await saveEvaluation(db, lease.epoch, fired, { alertmanager: false, webhooks: [`flaky-${run}`] }, t0);
    answers = [503];
    await deliverDueNotifications(db, alerts, () => undefined);
    const open = (await loadOpenAlerts(db)).filter((a) => a.labels.cluster === `outbox-${run}` && a.labels.resource === "lock:order");
    const resolved = evaluateAlerts({ nowMs: t0 + 1, rules: alerts.rules, open, conditions: [], resendMs: 60_000 });
    await saveEvaluation(db, lease.epoch, resolved, { alertmanager: false, webhooks: [`flaky-${run}`] }, t0 + 1);

    // This run's alone: a database a run before this one used holds its own "lock:order" alert.
    const rows = () =>
      db.alertNotification.findMany({
        where: {
          AND: [{ alert: { labels: { path: ["cluster"], equals: `outbox-${run}` } } }, { alert: { labels: { path: ["resource"], equals: "lock:order" } } }],
        },
        orderBy: { id: "asc" },
        select: { id: true, kind: true, deliveredAt: true, attempts: true },
      });
    // The firing is backing off; the resolution is due but waits.
    await deliverDueNotifications(db, alerts, () => undefined);
    expect((await rows()).map((r) => [r.kind, r.attempts, r.deliveredAt !== null])).toEqual([
      ["firing", 1, false],
      ["resolved", 0, false],
    ]);
    const [firing] = await rows();
    await db.alertNotification.update({ where: { id: firing!.id }, data: { nextAttemptAt: new Date(0) } });
    await deliverDueNotifications(db, alerts, () => undefined);
    expect((await rows()).map((r) => [r.kind, r.deliveredAt !== null])).toEqual([
      ["firing", true],
      ["resolved", true],
    ]);
  });

  it("records an unreachable receiver's error", async () => {
    const port = await findFreePort();
    const alerts = config(`http://127.0.0.1:${port}/hook`);
    await db.alertNotification.updateMany({
      where: { alert: { labels: { path: ["cluster"], equals: `outbox-${run}` } } },
      data: { deliveredAt: null, nextAttemptAt: new Date(0) },
    });
    await deliverDueNotifications(db, alerts, () => undefined);
    const [row] = await mine();
    expect(row!.deliveries.at(-1)).toMatchObject({ statusCode: null, error: "ECONNREFUSED" });
  });

  it("refuses the writes of a deposed evaluator", async () => {
    const alerts = config(`${receiver.url}/hook`);
    await db.alertEvaluatorLease.update({ where: { id: 1 }, data: { epoch: { increment: 1 } } });
    const evaluation = evaluateAlerts({
      nowMs: Date.now(),
      rules: alerts.rules,
      open: [],
      conditions: [{ ...condition, labels: { ...condition.labels, resource: "lock:b" } }],
      resendMs: 60_000,
    });
    await expect(saveEvaluation(db, lease.epoch, evaluation, { alertmanager: false, webhooks: [] }, Date.now())).rejects.toBeInstanceOf(EvaluatorDeposedError);
    expect(await db.alert.count({ where: { labels: { path: ["resource"], equals: "lock:b" } } })).toBe(0);
  });

  it("warns in one line when Alertmanager cannot be reached, and says nothing when it is not configured", async () => {
    const port = await findFreePort();
    expect(await checkAlertmanager(`http://127.0.0.1:${port}`)).toBe(
      `Alertmanager at http://127.0.0.1:${port} is unreachable (ECONNREFUSED); alert notifications wait in the outbox until it answers`,
    );
    expect(await checkAlertmanager(null)).toBeNull();
  });
});
