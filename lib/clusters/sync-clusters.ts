import "server-only";

import type { Config } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { sourceKindOf } from "@/lib/sources/registry";

/**
 * Makes the cluster table match the configuration: upserts each configured cluster by name;
 * a cluster no longer configured keeps its row and history, marked as not configured.
 */
export async function syncClusters(db: Db, config: Pick<Config, "clusters">): Promise<void> {
  const names = config.clusters.map((c) => c.name);
  await db.$transaction([
    ...config.clusters.map((cluster) => {
      const source = sourceKindOf(cluster);
      const fields = { kind: source.clusterKind, adminUrl: source.describe(cluster).endpoint, scope: source.scopeOf(cluster) as object, pollIntervalMs: cluster.pollIntervalMs };
      return db.cluster.upsert({ where: { name: cluster.name }, create: { name: cluster.name, ...fields }, update: { ...fields, isConfigured: true }, select: { id: true } });
    }),
    db.cluster.updateMany({ where: { name: { notIn: names }, isConfigured: true }, data: { isConfigured: false } }),
  ]);
}
