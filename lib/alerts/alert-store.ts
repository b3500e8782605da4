import "server-only";

import type { AlertAnnotations, AlertLabels, AlertSeverity, AlertState, Evaluation, StoredAlert } from "@/lib/alerts/alert-types";
import { EVALUATOR_LEASE_ID } from "@/lib/alerts/evaluator-lease";
import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

// The alerts and the outbox in PostgreSQL. An evaluation's result (alert rows, their history,
// the notifications it queues) is written in one transaction that first checks the evaluator's
// epoch: a restart finds exactly what was decided, and a deposed evaluator writes nothing.

export class EvaluatorDeposedError extends Error {
  override name = "EvaluatorDeposedError";
}

/** An alert row as ALERT_COLUMNS reads it. */
export type AlertRow = {
  id: bigint;
  fingerprint: string;
  labels: unknown;
  severity: string;
  summary: string;
  description: string;
  link: string;
  state: string;
  active_at: Date;
  fired_at: Date | null;
  resolved_at: Date | null;
  last_sent_at: Date | null;
};

/** The columns of AlertRow, of the table aliased `a`. */
export const ALERT_COLUMNS = sql`a.id, a.fingerprint, a.labels, a.severity, a.summary, a.description, a.link, a.state, a.active_at, a.fired_at, a.resolved_at, a.last_sent_at`;

const msOrNull = (date: Date | null) => (date === null ? null : date.getTime());
const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toStoredAlert(row: AlertRow): StoredAlert {
  return {
    id: row.id.toString(),
    fingerprint: row.fingerprint,
    labels: row.labels as AlertLabels,
    severity: row.severity as AlertSeverity,
    annotations: { summary: row.summary, description: row.description, link: row.link } satisfies AlertAnnotations,
    state: row.state as AlertState,
    activeAt: row.active_at.getTime(),
    firedAt: msOrNull(row.fired_at),
    resolvedAt: msOrNull(row.resolved_at),
    lastSentAt: msOrNull(row.last_sent_at),
  };
}

/** The pending and firing alerts, as the evaluator carries them from one evaluation to the next. */
export async function loadOpenAlerts(db: SqlDb): Promise<StoredAlert[]> {
  const rows = await db.$queryRaw<AlertRow[]>(sql`select ${ALERT_COLUMNS} from alert a where a.state in ('pending', 'firing')`);
  return rows.map(toStoredAlert);
}

export type Receivers = { alertmanager: boolean; webhooks: string[] };

/** Receiver names as the outbox stores them. */
export const ALERTMANAGER_RECEIVER = "alertmanager";
export const webhookReceiver = (name: string) => `webhook:${name}`;

/**
 * Writes one evaluation: alert rows (new, changed, resolved; dropped pending ones deleted), their
 * transitions, and one outbox row per receiver for each firing or resolved notification (and,
 * for Alertmanager, each re-send). Throws EvaluatorDeposedError when `epoch` is not the lease's.
 */
export async function saveEvaluation(db: SqlDb, epoch: bigint, evaluation: Evaluation, receivers: Receivers, nowMs: number): Promise<void> {
  const changed = new Set([...evaluation.transitions.map((t) => t.fingerprint), ...evaluation.resend, ...evaluation.notify.map((n) => n.fingerprint)]);
  const now = new Date(nowMs);
  await db.$transaction(async (tx) => {
    // Row lock on the lease: a takeover's epoch bump waits for this transaction, or this one sees it.
    const [lease] = await tx.$queryRaw<{ epoch: bigint }[]>(sql`select epoch from alert_evaluator_lease where id = ${EVALUATOR_LEASE_ID} for update`);
    if (!lease || BigInt(lease.epoch) !== epoch) throw new EvaluatorDeposedError(`alert evaluator epoch ${epoch} was superseded`);

    const ids = new Map<string, bigint>();
    for (const alert of evaluation.alerts) {
      const { summary, description, link } = alert.annotations;
      const firedAt = isoOrNull(alert.firedAt);
      const resolvedAt = isoOrNull(alert.resolvedAt);
      const lastSentAt = isoOrNull(alert.lastSentAt);
      if (alert.id === null) {
        const [created] = await tx.$queryRaw<{ id: bigint }[]>(sql`
          insert into alert (fingerprint, rule, labels, severity, summary, description, link, state, active_at, fired_at, resolved_at, last_sent_at)
          values (${alert.fingerprint}, ${alert.labels.alertname}, ${JSON.stringify(alert.labels)}::jsonb, ${alert.severity}, ${summary}, ${description}, ${link},
            ${alert.state}, ${new Date(alert.activeAt).toISOString()}::timestamptz, ${firedAt}::timestamptz, ${resolvedAt}::timestamptz, ${lastSentAt}::timestamptz)
          returning id`);
        ids.set(alert.fingerprint, created!.id);
      } else {
        ids.set(alert.fingerprint, BigInt(alert.id));
        // Only rows whose state moved or that were sent are written (their words with them).
        if (changed.has(alert.fingerprint)) {
          await tx.$executeRaw(sql`
            update alert set severity = ${alert.severity}, summary = ${summary}, description = ${description}, link = ${link}, state = ${alert.state},
              fired_at = ${firedAt}::timestamptz, resolved_at = ${resolvedAt}::timestamptz, last_sent_at = ${lastSentAt}::timestamptz
            where id = ${BigInt(alert.id)}`);
        }
      }
    }
    const dropped = evaluation.dropped.map((a) => BigInt(a.id!));
    if (dropped.length > 0) await tx.$executeRaw(sql`delete from alert where id = any(${dropped}::bigint[])`);

    const transitions = evaluation.transitions;
    if (transitions.length > 0) {
      await tx.$executeRaw(sql`
        insert into alert_transition (alert_id, from_state, to_state, at)
        select * from unnest(${transitions.map((t) => ids.get(t.fingerprint)!)}::bigint[], ${transitions.map((t) => t.from)}::text[],
          ${transitions.map((t) => t.to)}::text[], ${transitions.map((t) => new Date(t.at).toISOString())}::timestamptz[])`);
    }
    const all = [...(receivers.alertmanager ? [ALERTMANAGER_RECEIVER] : []), ...receivers.webhooks.map(webhookReceiver)];
    const outbox = [
      ...evaluation.notify.flatMap((n) => all.map((receiver) => ({ alertId: ids.get(n.fingerprint)!, receiver, kind: n.kind }))),
      ...(receivers.alertmanager
        ? evaluation.resend.map((fingerprint) => ({ alertId: ids.get(fingerprint)!, receiver: ALERTMANAGER_RECEIVER, kind: "firing" }))
        : []),
    ];
    if (outbox.length > 0) {
      await tx.$executeRaw(sql`
        insert into alert_notification (alert_id, receiver, kind, next_attempt_at)
        select u.alert_id, u.receiver, u.kind, ${now.toISOString()}::timestamptz
        from unnest(${outbox.map((o) => o.alertId)}::bigint[], ${outbox.map((o) => o.receiver)}::text[], ${outbox.map((o) => o.kind)}::text[]) as u(alert_id, receiver, kind)`);
    }
  });
}
