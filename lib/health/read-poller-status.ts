import "server-only";

import type { Db } from "@/lib/db/client";
import type { PollerStatus } from "@/lib/health/health-report";

/** Who polls each cluster (lease holder and epoch) and how its last cycle went. */
export async function readPollerStatus(db: Db, clusterNames: string[]): Promise<Map<string, PollerStatus>> {
  const clusters = await db.cluster.findMany({
    where: { name: { in: clusterNames } },
    select: {
      name: true,
      pollerLease: { select: { pollerId: true, epoch: true, acquiredAt: true, heartbeatAt: true } },
      pollRuns: { orderBy: { startedAt: "desc" }, take: 1, select: { finishedAt: true, cycleMs: true, durationMs: true, errorCount: true, resourceCount: true, topicCount: true, errors: true } },
    },
  });
  return new Map(
    clusters.map((cluster) => {
      const run = cluster.pollRuns[0];
      const lease = cluster.pollerLease;
      return [
        cluster.name,
        {
          pollerId: lease?.pollerId ?? null,
          epoch: lease ? Number(lease.epoch) : null,
          acquiredAt: lease?.acquiredAt.toISOString() ?? null,
          heartbeatAt: lease?.heartbeatAt.toISOString() ?? null,
          lastPollAt: run?.finishedAt.toISOString() ?? null,
          lastCycleMs: run?.cycleMs ?? null,
          lastDurationMs: run?.durationMs ?? null,
          lastErrorCount: run?.errorCount ?? null,
          lastError: run ? ((run.errors as { message?: string }[])[0]?.message ?? null) : null,
          topicCount: run?.topicCount ?? null,
          resourceCount: run?.resourceCount ?? null,
        },
      ];
    }),
  );
}
