import "server-only";

import type { AlertsConfig } from "@/lib/alerts/alert-config";
import type { NotificationKind, StoredAlert } from "@/lib/alerts/alert-types";
import { ALERT_COLUMNS, ALERTMANAGER_RECEIVER, type AlertRow, toStoredAlert, webhookReceiver } from "@/lib/alerts/alert-store";
import { alertmanagerBody, signBody, slackBody, webhookBody } from "@/lib/alerts/notification-bodies";
import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

// Sends what the outbox holds: due notifications (not delivered, next attempt passed) oldest
// first, in order per alert and receiver, each attempt recorded in alert_delivery. A failure is retried with exponential backoff
// (1 s, 2 s, 4 s, ... at most 5 min), forever: a receiver that comes back gets everything, in
// order. Delivery is at least once: the webhook body's `id` lets a receiver drop a repeat.

const BATCH = 500;
const MAX_BACKOFF_MS = 300_000;
const ALERTMANAGER_TIMEOUT_MS = 10_000;

/** An undelivered notification with its alert (the alert's columns as AlertRow). */
type UndeliveredRow = AlertRow & { notification_id: bigint; receiver: string; kind: string; attempts: number; next_attempt_at: Date };

export function backoffMs(attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.max(0, attempts - 1));
}

type Target = { url: string; body: string; headers: Record<string, string>; timeoutMs: number };

function targetOf(config: AlertsConfig, receiver: string, alert: StoredAlert, kind: NotificationKind, id: string, nowMs: number): Target | null {
  if (receiver === ALERTMANAGER_RECEIVER) {
    if (!config.alertmanagerUrl) return null;
    // As Prometheus: valid for 4 times the longer of the resend delay and the evaluation interval.
    const validFor = 4 * Math.max(config.resendMs, config.evaluationIntervalMs);
    return {
      url: `${config.alertmanagerUrl}/api/v2/alerts`,
      body: JSON.stringify(alertmanagerBody(alert, nowMs, validFor)),
      headers: {},
      timeoutMs: ALERTMANAGER_TIMEOUT_MS,
    };
  }
  const hook = config.webhooks.find((h) => webhookReceiver(h.name) === receiver);
  if (!hook) return null;
  const body = JSON.stringify(hook.format === "slack" ? slackBody(alert, kind) : webhookBody(alert, kind, id, nowMs));
  const headers: Record<string, string> = hook.format === "generic" ? { "x-baton-delivery": id } : {};
  if (hook.secret !== null) headers["x-baton-signature"] = signBody(hook.secret, body);
  return { url: hook.url, body, headers, timeoutMs: hook.timeoutMs };
}

async function post(target: Target): Promise<{ statusCode: number | null; error: string | null }> {
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body: target.body,
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    await response.body?.cancel();
    return response.ok ? { statusCode: response.status, error: null } : { statusCode: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    const reason = error as Error & { cause?: { code?: string; message?: string } };
    return {
      statusCode: null,
      error: reason.name === "TimeoutError" ? `no answer within ${target.timeoutMs} ms` : (reason.cause?.code ?? reason.cause?.message ?? reason.message),
    };
  }
}

/** Delivers the due notifications once each; answers how many were delivered and how many failed. */
export async function deliverDueNotifications(db: SqlDb, config: AlertsConfig, log: (line: string) => void): Promise<{ delivered: number; failed: number }> {
  // Every undelivered one (not only the due): a notification waits for the earlier ones of its
  // alert and receiver, so that a resolution never overtakes its firing.
  const undelivered = await db.$queryRaw<UndeliveredRow[]>(sql`
    select n.id as notification_id, n.receiver, n.kind, n.attempts, n.next_attempt_at, ${ALERT_COLUMNS}
    from alert_notification n join alert a on a.id = n.alert_id
    where n.delivered_at is null
    order by n.id
    limit ${BATCH}`);
  let delivered = 0;
  let failed = 0;
  const deliverOne = async (row: UndeliveredRow) => {
    const alert = toStoredAlert(row);
    const started = Date.now();
    const target = targetOf(config, row.receiver, alert, row.kind as NotificationKind, row.notification_id.toString(), started);
    const answer = target ? await post(target) : { statusCode: null, error: `receiver ${row.receiver} is no longer configured` };
    const finished = Date.now();
    const attempts = row.attempts + 1;
    // Delivered; or abandoned, when its receiver was removed from the configuration; or retried later.
    const isDone = answer.error === null || target === null;
    const deliveredAt = isDone ? new Date(finished).toISOString() : null;
    const nextAttemptAt = isDone ? row.next_attempt_at.toISOString() : new Date(finished + backoffMs(attempts)).toISOString();
    await db.$transaction(async (tx) => {
      await tx.$executeRaw(sql`
        insert into alert_delivery (notification_id, at, status_code, error, duration_ms)
        values (${row.notification_id}, ${new Date(started).toISOString()}::timestamptz, ${answer.statusCode}::int, ${answer.error}, ${finished - started})`);
      await tx.$executeRaw(sql`
        update alert_notification set attempts = ${attempts}, delivered_at = ${deliveredAt}::timestamptz, next_attempt_at = ${nextAttemptAt}::timestamptz,
          last_error = ${answer.error}
        where id = ${row.notification_id}`);
    });
    if (answer.error === null) delivered++;
    else {
      failed++;
      log(`alerts: ${row.kind} notification ${row.notification_id} of ${alert.fingerprint} to ${row.receiver} failed (attempt ${attempts}): ${answer.error}`);
    }
    return answer.error === null;
  };
  // Receivers at once (a slow one holds up no other); each receiver's notifications in order. An
  // alert whose earlier notification is not due yet or just failed waits, its later ones too.
  const nowMs = Date.now();
  const byReceiver = new Map<string, typeof undelivered>();
  for (const row of undelivered) byReceiver.set(row.receiver, [...(byReceiver.get(row.receiver) ?? []), row]);
  await Promise.all(
    [...byReceiver.values()].map(async (rows) => {
      const waiting = new Set<bigint>();
      for (const row of rows) {
        if (waiting.has(row.id)) continue;
        if (row.next_attempt_at.getTime() > nowMs || !(await deliverOne(row))) waiting.add(row.id);
      }
    }),
  );
  return { delivered, failed };
}
