import "server-only";

import type { AlertsConfig } from "@/lib/alerts/alert-config";
import { EvaluatorDeposedError, loadOpenAlerts, saveEvaluation } from "@/lib/alerts/alert-store";
import type { AlertCondition } from "@/lib/alerts/alert-types";
import { deliverDueNotifications } from "@/lib/alerts/deliver-notifications";
import { evaluateAlerts } from "@/lib/alerts/evaluate-alerts";
import { acquireEvaluatorLease } from "@/lib/alerts/evaluator-lease";
import type { SqlDb } from "@/lib/db/sql-db";
import { sleep } from "@/lib/sleep";

type Options = {
  db: SqlDb;
  databaseUrl: string;
  alerts: AlertsConfig;
  /** What holds now (lib/alerts/read-conditions.ts in the worker). */
  readConditions: (nowMs: number) => Promise<AlertCondition[]>;
  /** A mark that moves when what the rules read changes (lib/alerts/read-change-mark.ts): a move evaluates at once. */
  readChangeMark?: () => Promise<string>;
  evaluatorId: string;
  signal: AbortSignal;
  log: (line: string) => void;
  /** How often a standby tries to take over. */
  retryMs?: number;
};

const RESTART_DELAY_MS = 2_000;
/** How often the change mark is read between evaluations. */
const PROBE_MS = 250;

/** Sleeps until `untilMs`, or until the change mark moves from `mark`; answers the mark last read. */
async function waitForTick(untilMs: number, mark: string | null, readChangeMark: Options["readChangeMark"], signal: AbortSignal): Promise<string | null> {
  while (!signal.aborted && Date.now() < untilMs) {
    await sleep(Math.min(PROBE_MS, untilMs - Date.now()), signal);
    if (!readChangeMark || signal.aborted) continue;
    const now = await readChangeMark();
    if (now !== mark) return now;
  }
  return mark;
}

/**
 * One evaluation, written; answers how long it took (ms) and when the earliest pending alert is
 * due to fire (epoch ms, or null): the evaluator wakes then rather than an interval later, so an
 * alert fires its `for` after the condition began, not up to an interval after that.
 */
export async function evaluateOnce(
  options: Pick<Options, "db" | "alerts" | "readConditions">,
  epoch: bigint,
  nowMs: number,
): Promise<{ durationMs: number; nextDueMs: number | null }> {
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
 * evaluation interval, as soon as a poller stores a holder change, and when a pending alert's
 * `for` is up, and delivers the outbox after each evaluation, until it loses the lease (and stands by again)
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
      let mark = options.readChangeMark ? await options.readChangeMark() : null;
      while (!stop.signal.aborted) {
        const tickStarted = Date.now();
        const { nextDueMs } = await evaluateOnce(options, lease.epoch, tickStarted);
        await deliverDueNotifications(options.db, alerts, log);
        // At least 100 ms apart, so that a burst of due alerts or changes is one evaluation.
        const nextTick = Math.max(Date.now() + 100, Math.min(tickStarted + alerts.evaluationIntervalMs, nextDueMs ?? Number.POSITIVE_INFINITY));
        mark = await waitForTick(nextTick, mark, options.readChangeMark, stop.signal);
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
