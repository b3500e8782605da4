import "server-only";

import type { Config } from "@/lib/config";
import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import { sourceKindOf } from "@/lib/sources/registry";

/**
 * Makes the cluster table match the configuration: upserts each configured cluster by name;
 * a cluster no longer configured keeps its row and history, marked as not configured.
 */
export async function syncClusters(db: SqlDb, config: Pick<Config, "clusters">): Promise<void> {
  const names = config.clusters.map((c) => c.name);
  await db.$transaction(async (tx) => {
    for (const cluster of config.clusters) {
      const source = sourceKindOf(cluster);
      await tx.$executeRaw(sql`
        insert into cluster (name, kind, admin_url, scope, poll_interval_ms, is_configured, updated_at)
        values (${cluster.name}, ${source.clusterKind}::cluster_kind, ${source.describe(cluster).endpoint}, ${JSON.stringify(source.scopeOf(cluster))}::jsonb,
          ${cluster.pollIntervalMs}, true, now())
        on conflict (name) do update set kind = excluded.kind, admin_url = excluded.admin_url, scope = excluded.scope,
          poll_interval_ms = excluded.poll_interval_ms, is_configured = true, updated_at = excluded.updated_at`);
    }
    await tx.$executeRaw(sql`update cluster set is_configured = false, updated_at = now() where is_configured and name <> all(${names}::text[])`);
  });
}
