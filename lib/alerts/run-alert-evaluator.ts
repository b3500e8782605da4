import "server-only";

import type { AlertsConfig } from "@/lib/alerts/alert-config";
import { EvaluatorDeposedError, loadOpenAlerts, saveEvaluation } from "@/lib/alerts/alert-store";
import type { AlertCondition } from "@/lib/alerts/alert-types";
import { deliverDueNotifications } from "@/lib/alerts/deliver-notifications";
import { evaluateAlerts } from "@/lib/alerts/evaluate-alerts";
import { acquireEvaluatorLease } from "@/lib/alerts/evaluator-lease";
import type { Db } from "@/lib/db/client";
import { sleep } from "@/lib/sleep";

type Options = {
  db: Db;
  databaseUrl: string;
  alerts: AlertsConfig;
  /** What holds now (lib/alerts/read-conditions.ts in the worker). */
  readConditions: (nowMs: number) => Promise<AlertCondition[]>;
  evaluatorId: string;
  signal: AbortSignal;
  log: (line: string) => void;
  /** How often a standby tries to take over. */
  retryMs?: number;
};

const RESTART_DELAY_MS = 2_000;

/**
 * One evaluation, written; answers how long it took (ms) and when the earliest pending alert is
 * due to fire (epoch ms, or null): the evaluator wakes then rather than an interval later, so an
 * alert fires its `for` after the condition began, not up to an interval after that.
 */
export async function evaluateOnce(options: Pick<Options, "db" | "alerts" | "readConditions">, epoch: bigint, nowMs: number): Promise<{ durationMs: number; nextDueMs: number | null }> {
  const started = performance.now();
  const [open, conditions] = await Promise.all([loadOpenAlerts(options.db), options.readConditions(nowMs)]);
  const evaluation = evaluateAlerts({ nowMs, rules: options.alerts.rules, open, conditions, resendMs: options.alerts.resendMs });
  const receivers = { alertmanager: options.alerts.alertmanagerUrl !== null, webhooks: options.alerts.webhooks.map((h) => h.name) };
  await saveEvaluation(options.db, epoch, evaluation, receivers, nowMs);
  let nextDueMs: number | null = null;
  for (const alert of evaluation.alerts) {
    if (alert.state !== "pending") continue;
    const due = alert.activeAt + options.alerts.rules[alert.labels.alertname].forMs;
    if (nextDueMs === null || due < nextDueMs) nextDueMs = due;
  }
  return { durationMs: performance.now() - started, nextDueMs };
}

/**
 * Stands by until this process holds the evaluator lease, then evaluates every rule each
 * evaluation interval and delivers the outbox, until it loses the lease (and stands by again)
 * or `signal` aborts.
 */
export async function runAlertEvaluator(options: Options): Promise<void> {
  const { signal, log, alerts } = options;
  while (!signal.aborted) {
    const lease = await acquireEvaluatorLease({ databaseUrl: options.databaseUrl, evaluatorId: options.evaluatorId, retryMs: options.retryMs, signal, log });
    if (!lease) return;
    log(`alerts: evaluating as ${options.evaluatorId}, epoch ${lease.epoch}`);
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    void lease.lost.then((reason) => {
      if (!stop.signal.aborted) log(`alerts: lost the evaluator lease (${reason}); standing by`);
      stop.abort();
    });
    try {
      while (!stop.signal.aborted) {
        const tickStarted = Date.now();
        const { nextDueMs } = await evaluateOnce(options, lease.epoch, tickStarted);
        await deliverDueNotifications(options.db, alerts, log);
        const nextTick = Math.min(tickStarted + alerts.evaluationIntervalMs, nextDueMs ?? Number.POSITIVE_INFINITY);
        // At least 100 ms apart, so that a burst of due alerts is one evaluation.
        await sleep(Math.max(100, nextTick - Date.now()), stop.signal);
      }
    } catch (error) {
      if (error instanceof EvaluatorDeposedError) log(`alerts: ${error.message}; standing by`);
      else log(`alerts: evaluation failed: ${(error as Error).message}; restarting`);
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
      await lease.release();
    }
    if (!signal.aborted) await sleep(RESTART_DELAY_MS, signal);
  }
}
