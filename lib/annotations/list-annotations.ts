import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";
import { effectiveEndMs } from "@/lib/deployments/deployment-windows";
import { listDeploymentsInRange } from "@/lib/deployments/list-deployments-in-range";

// Holder changes and deployments as Grafana annotations: the fields of Grafana's own annotation
// model (time and timeEnd in epoch ms, title, text, tags), so that the JSON API and Infinity data
// sources map them without transformations (docs/metrics.md).

export type Annotation = {
  /** "change-<id>" or "deployment-<id>". */
  id: string;
  /** Epoch ms: when the change was first seen, or the deployment started. */
  time: number;
  /** Epoch ms: equal to `time` for a change (a point); the deployment's finish (or now while it runs, at most a day). */
  timeEnd: number;
  title: string;
  text: string;
  tags: string[];
};

export type AnnotationsQuery = { kind: "changes" | "deployments"; cluster: string | null; service: string | null; fromMs: number; toMs: number; limit: number };

/** The holder-related change kinds: standbys joining or Key_Shared ranges moving are not holder changes. */
const HOLDER_CHANGE_KINDS = ["HOLDER_CHANGED", "HOLDER_LOST", "HOLDER_APPEARED", "HIDDEN_FLAP", "REPLAYED_FLAP"];

export async function listAnnotations(db: Db, query: AnnotationsQuery, clusterNames: string[], nowMs = Date.now()): Promise<Annotation[]> {
  return query.kind === "changes"
    ? listChangeAnnotations(db, query, query.cluster === null ? clusterNames : [query.cluster])
    : listDeploymentAnnotations(db, query, nowMs);
}

async function listChangeAnnotations(db: Db, query: AnnotationsQuery, clusterNames: string[]): Promise<Annotation[]> {
  if (clusterNames.length === 0) return [];
  // Per configured cluster, on the (cluster_id, new_seen_at) index.
  const rows = await db.$queryRaw<
    {
      id: bigint;
      new_seen_at: Date;
      cluster: string;
      resource_key: string;
      resource_kind: string;
      kind: string;
      cause: string;
      ending: string | null;
      from_holder: string | null;
      to_holder: string | null;
      is_during_gap: boolean;
    }[]
  >(sql`
    select h.id, h.new_seen_at, c.name as cluster, r.resource_key, r.kind::text as resource_kind, h.kind::text as kind, h.cause::text as cause,
      h.ending::text as ending, h.from_holder, h.to_holder, h.is_during_gap
    from holder_change h
    join cluster c on c.id = h.cluster_id
    join held_resource r on r.id = h.resource_id
    where c.name = any(${clusterNames}::text[]) and h.kind::text = any(${HOLDER_CHANGE_KINDS}::text[])
      and h.new_seen_at >= ${new Date(query.fromMs)} and h.new_seen_at < ${new Date(query.toMs)}
    order by h.new_seen_at desc, h.id desc
    limit ${query.limit}`);
  return rows.map((row) => {
    const time = row.new_seen_at.getTime();
    const from = row.from_holder ?? "nobody";
    const to = row.to_holder ?? "nobody";
    const how = [row.cause.toLowerCase(), row.ending?.toLowerCase().replace("_", " "), row.is_during_gap ? "during a gap in polling" : null]
      .filter(Boolean)
      .join(", ");
    return {
      id: `change-${row.id}`,
      time,
      timeEnd: time,
      title: `${row.cluster}: ${from} → ${to}`,
      text: `${row.kind.toLowerCase().replaceAll("_", " ")} on ${row.resource_key} (${how})`,
      tags: ["baton", "holder-change", row.cluster, row.resource_kind.toLowerCase(), row.kind.toLowerCase(), ...(row.ending ? [row.ending.toLowerCase()] : [])],
    };
  });
}

async function listDeploymentAnnotations(db: Db, query: AnnotationsQuery, nowMs: number): Promise<Annotation[]> {
  const rows = await listDeploymentsInRange(db, query);
  return rows.map((row) => {
    const time = row.startedAt.getTime();
    const timeEnd = effectiveEndMs({ startedAtMs: time, finishedAtMs: row.finishedAt?.getTime() ?? null }, nowMs);
    const status = row.finishedAt ? "" : " (in progress)";
    return {
      id: `deployment-${row.id}`,
      time,
      timeEnd,
      title: `${row.service} ${row.version}${status}`,
      text: [`Deployment of ${row.service} ${row.version} to ${row.environment}`, row.description, row.link].filter(Boolean).join("\n"),
      tags: ["baton", "deployment", row.service, row.environment],
    };
  });
}
