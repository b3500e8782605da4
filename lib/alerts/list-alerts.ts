import "server-only";

import type { AlertsQuery } from "@/lib/alerts/alerts-params";
import type { AlertLabels, AlertRuleName, AlertSeverity, AlertState, AlertView } from "@/lib/alerts/alert-types";
import { sortAlerts } from "@/lib/alerts/sort-alerts";
import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";

export type AlertList = { generatedAt: string; alerts: AlertView[] };

/**
 * Alerts with their state history: firing first, then pending, then resolved, each by severity
 * then newest first (sortAlerts). Filters by state, rule, labels (cluster, resource, subscription, service) and a time range the alert was active in.
 */
export async function listAlerts(db: Db, query: AlertsQuery, nowMs = Date.now()): Promise<AlertList> {
  const where: Prisma.AlertWhereInput[] = [];
  if (query.state !== null) where.push({ state: query.state });
  if (query.rule !== null) where.push({ rule: query.rule });
  if (query.cluster !== null) where.push({ labels: { path: ["cluster"], equals: query.cluster } });
  if (query.resource !== null) where.push({ labels: { path: ["resource"], equals: query.resource } });
  if (query.subscription !== null) where.push({ labels: { path: ["subscription"], equals: query.subscription } });
  if (query.service !== null) where.push({ labels: { path: ["service"], equals: query.service } });
  if (query.toMs !== null) where.push({ activeAt: { lt: new Date(query.toMs) } });
  if (query.fromMs !== null) where.push({ OR: [{ resolvedAt: null }, { resolvedAt: { gte: new Date(query.fromMs) } }] });
  const rows = await db.alert.findMany({
    where: { AND: where },
    // Open alerts are few; the newest resolved ones fill the rest.
    orderBy: [{ resolvedAt: { sort: "desc", nulls: "first" } }, { activeAt: "desc" }],
    take: query.limit,
    select: {
      id: true,
      fingerprint: true,
      rule: true,
      labels: true,
      severity: true,
      state: true,
      summary: true,
      description: true,
      link: true,
      activeAt: true,
      firedAt: true,
      resolvedAt: true,
      transitions: { orderBy: { id: "asc" }, select: { toState: true, at: true } },
    },
  });
  const alerts = rows.map(
    (row): AlertView => ({
      id: row.id.toString(),
      fingerprint: row.fingerprint,
      rule: row.rule as AlertRuleName,
      labels: row.labels as AlertLabels,
      severity: row.severity as AlertSeverity,
      state: row.state as AlertState,
      summary: row.summary,
      description: row.description,
      link: row.link,
      activeAt: row.activeAt.toISOString(),
      firedAt: row.firedAt?.toISOString() ?? null,
      resolvedAt: row.resolvedAt?.toISOString() ?? null,
      history: row.transitions.map((t) => ({ state: t.toState as AlertState, at: t.at.toISOString() })),
    }),
  );
  return { generatedAt: new Date(nowMs).toISOString(), alerts: sortAlerts(alerts) };
}
