import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { deploymentNotFound } from "@/lib/deployments/deployment-ref";
import { getDeploymentBand } from "@/lib/deployments/get-deployment-band";
import { toBand } from "@/lib/deployments/list-deployment-bands";
import { buildTraceUrl } from "@/lib/violations/trace-url";
import type { DeploymentBand } from "@/lib/violations/violation-types";

/** The detail lists at most this many violations (the latest) and this many keys and workers. */
const DEPLOYMENT_EVENT_LIMIT = 200;
const TOP_LIMIT = 10;

export type DeploymentViolation = {
  eventId: string;
  key: string;
  worker: string;
  subscription: string | null;
  counter: number;
  traceId: string | null;
  traceUrl: string | null;
  observedAt: string;
};

export type DeploymentViolations = {
  deployment: DeploymentBand & { description: string | null };
  graceMs: number;
  /** Raw violations of the deployment's service inside its window (retention may have deleted older ones). */
  total: number;
  keys: { name: string; violations: number }[];
  workers: { name: string; violations: number }[];
  events: DeploymentViolation[];
};

type EventRow = { event_id: string; key: string; worker: string; subscription: string | null; counter: number; trace_id: string | null; observed_at: Date };

/** One deployment (Baton id or the client's id) with the raw violations of its service inside its window. */
export async function getDeploymentViolations(
  db: Db,
  ref: string,
  settings: { graceMs: number; traceUrlTemplate: string | null; nowMs?: number },
): Promise<DeploymentViolations> {
  const nowMs = settings.nowMs ?? Date.now();
  const found = await getDeploymentBand(db, ref, { nowMs, graceMs: settings.graceMs });
  if (!found) throw deploymentNotFound(ref);
  const band = found.row;
  // The (service, observed_at) index bounds every statement to the window.
  const inWindow = sql`e.service = ${band.service} and e.observed_at >= date_trunc('minute', ${band.started_at}::timestamptz, 'UTC') and e.observed_at < ${band.window_end}::timestamptz and e.is_violation and e.counter > 0`;
  const [events, groups] = await Promise.all([
    db.$queryRaw<EventRow[]>(sql`
      select baton_id_text(e.event_id) as event_id, e.key, e.worker, e.subscription, e.counter, baton_id_text(e.trace_id) as trace_id, e.observed_at
      from exclusivity_event e where ${inWindow}
      order by e.observed_at desc, e.event_id desc limit ${DEPLOYMENT_EVENT_LIMIT}`),
    db.$queryRaw<{ list: "key" | "worker" | "total"; name: string; violations: number }[]>(sql`
      with v as materialized (select e.key, e.worker from exclusivity_event e where ${inWindow})
      (select 'total' as list, '' as name, count(*)::int as violations from v)
      union all
      (select 'key', key, count(*)::int from v group by key order by count(*) desc, key limit ${TOP_LIMIT})
      union all
      (select 'worker', worker, count(*)::int from v group by worker order by count(*) desc, worker limit ${TOP_LIMIT})`),
  ]);
  const pick = (list: "key" | "worker") => groups.filter((g) => g.list === list).map(({ name, violations }) => ({ name, violations }));
  return {
    deployment: { ...toBand(band), description: found.description },
    graceMs: settings.graceMs,
    total: groups.find((g) => g.list === "total")?.violations ?? 0,
    keys: pick("key"),
    workers: pick("worker"),
    events: events.map((e) => ({
      eventId: e.event_id,
      key: e.key,
      worker: e.worker,
      subscription: e.subscription,
      counter: e.counter,
      traceId: e.trace_id,
      traceUrl: e.trace_id === null ? null : buildTraceUrl(settings.traceUrlTemplate, e.trace_id),
      observedAt: e.observed_at.toISOString(),
    })),
  };
}
