import "server-only";

import type { Config } from "@/lib/config";
import type { Db } from "@/lib/db/client";

export type ClusterOverview = {
  name: string;
  adminUrl: string;
  hasToken: boolean;
  isTls: boolean;
  scope: Config["clusters"][number]["scope"];
  pollIntervalMs: number;
  requestsPerSecond: number;
  /** Held resources (subscription partitions) Baton has seen on this cluster. */
  resourceCount: number;
  lastPollAt: string | null;
  lastPollErrorCount: number | null;
};

/** The configured clusters, with what the database knows of each. */
export async function listClusters(db: Db, config: Config): Promise<ClusterOverview[]> {
  const names = config.clusters.map((c) => c.name);
  const rows = await db.cluster.findMany({
    where: { name: { in: names } },
    select: {
      name: true,
      _count: { select: { resources: true } },
      pollRuns: { orderBy: { startedAt: "desc" }, take: 1, select: { finishedAt: true, errorCount: true } },
    },
  });
  const byName = new Map(rows.map((row) => [row.name, row]));
  return config.clusters.map((cluster) => {
    const row = byName.get(cluster.name);
    const lastRun = row?.pollRuns[0];
    return {
      name: cluster.name,
      adminUrl: cluster.adminUrl,
      hasToken: cluster.token !== undefined,
      isTls: cluster.adminUrl.startsWith("https:"),
      scope: cluster.scope,
      pollIntervalMs: cluster.pollIntervalMs,
      requestsPerSecond: cluster.requestsPerSecond,
      resourceCount: row?._count.resources ?? 0,
      lastPollAt: lastRun?.finishedAt.toISOString() ?? null,
      lastPollErrorCount: lastRun?.errorCount ?? null,
    };
  });
}
