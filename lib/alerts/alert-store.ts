import "server-only";

import type { AlertAnnotations, AlertLabels, AlertSeverity, AlertState, Evaluation, StoredAlert } from "@/lib/alerts/alert-types";
import { EVALUATOR_LEASE_ID } from "@/lib/alerts/evaluator-lease";
import type { Db } from "@/lib/db/client";

// The alerts and the outbox in PostgreSQL. An evaluation's result (alert rows, their history,
// the notifications it queues) is written in one transaction that first checks the evaluator's
// epoch: a restart finds exactly what was decided, and a deposed evaluator writes nothing.

export class EvaluatorDeposedError extends Error {
  override name = "EvaluatorDeposedError";
}

const ALERT_SELECT = {
  id: true,
  fingerprint: true,
  labels: true,
  severity: true,
  summary: true,
  description: true,
  link: true,
  state: true,
  activeAt: true,
  firedAt: true,
  resolvedAt: true,
  lastSentAt: true,
} as const;

const msOrNull = (date: Date | null) => (date === null ? null : date.getTime());
const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

/** The pending and firing alerts, as the evaluator carries them from one evaluation to the next. */
export async function loadOpenAlerts(db: Db): Promise<StoredAlert[]> {
  const rows = await db.alert.findMany({ where: { state: { in: ["pending", "firing"] } }, select: ALERT_SELECT });
  return rows.map((row) => ({
    id: row.id.toString(),
    fingerprint: row.fingerprint,
    labels: row.labels as AlertLabels,
    severity: row.severity as AlertSeverity,
    annotations: { summary: row.summary, description: row.description, link: row.link } satisfies AlertAnnotations,
    state: row.state as AlertState,
    activeAt: row.activeAt.getTime(),
    firedAt: msOrNull(row.firedAt),
    resolvedAt: msOrNull(row.resolvedAt),
    lastSentAt: msOrNull(row.lastSentAt),
  }));
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
export async function saveEvaluation(db: Db, epoch: bigint, evaluation: Evaluation, receivers: Receivers, nowMs: number): Promise<void> {
  const changed = new Set([...evaluation.transitions.map((t) => t.fingerprint), ...evaluation.resend, ...evaluation.notify.map((n) => n.fingerprint)]);
  const now = new Date(nowMs);
  await db.$transaction(async (tx) => {
    // Row lock on the lease: a takeover's epoch bump waits for this transaction, or this one sees it.
    const [lease] = await tx.$queryRaw<{ epoch: bigint }[]>`select epoch from alert_evaluator_lease where id = ${EVALUATOR_LEASE_ID} for update`;
    if (!lease || BigInt(lease.epoch) !== epoch) throw new EvaluatorDeposedError(`alert evaluator epoch ${epoch} was superseded`);

    const ids = new Map<string, bigint>();
    for (const alert of evaluation.alerts) {
      const data = {
        severity: alert.severity,
        summary: alert.annotations.summary,
        description: alert.annotations.description,
        link: alert.annotations.link,
        state: alert.state,
        firedAt: dateOrNull(alert.firedAt),
        resolvedAt: dateOrNull(alert.resolvedAt),
        lastSentAt: dateOrNull(alert.lastSentAt),
      };
      if (alert.id === null) {
        const created = await tx.alert.create({
          data: { ...data, fingerprint: alert.fingerprint, rule: alert.labels.alertname, labels: alert.labels, activeAt: new Date(alert.activeAt) },
          select: { id: true },
        });
        ids.set(alert.fingerprint, created.id);
      } else {
        ids.set(alert.fingerprint, BigInt(alert.id));
        // Only rows whose state moved or that were sent are written (their words with them).
        if (changed.has(alert.fingerprint)) await tx.alert.update({ where: { id: BigInt(alert.id) }, data, select: { id: true } });
      }
    }
    const dropped = evaluation.dropped.map((a) => BigInt(a.id!));
    if (dropped.length > 0) await tx.alert.deleteMany({ where: { id: { in: dropped } } });

    if (evaluation.transitions.length > 0) {
      await tx.alertTransition.createMany({
        data: evaluation.transitions.map((t) => ({ alertId: ids.get(t.fingerprint)!, fromState: t.from, toState: t.to, at: new Date(t.at) })),
      });
    }
    const all = [...(receivers.alertmanager ? [ALERTMANAGER_RECEIVER] : []), ...receivers.webhooks.map(webhookReceiver)];
    const outbox = [
      ...evaluation.notify.flatMap((n) => all.map((receiver) => ({ alertId: ids.get(n.fingerprint)!, receiver, kind: n.kind, nextAttemptAt: now }))),
      ...(receivers.alertmanager ? evaluation.resend.map((fingerprint) => ({ alertId: ids.get(fingerprint)!, receiver: ALERTMANAGER_RECEIVER, kind: "firing", nextAttemptAt: now })) : []),
    ];
    if (outbox.length > 0) await tx.alertNotification.createMany({ data: outbox });
  });
}
