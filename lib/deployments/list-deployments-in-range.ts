import "server-only";

import type { Db } from "@/lib/db/client";
import { OPEN_DEPLOYMENT_MAX_MS } from "@/lib/deployments/deployment-windows";

export type DeploymentInRange = {
  id: bigint;
  service: string;
  version: string;
  environment: string;
  startedAt: Date;
  finishedAt: Date | null;
  link: string | null;
  description: string | null;
};

/**
 * Deployments overlapping [fromMs, toMs): started before its end, and finished (or still open,
 * at most a day) after its start; newest first, at most `limit`, of one service when set.
 */
export async function listDeploymentsInRange(
  db: Db,
  query: { fromMs: number; toMs: number; service: string | null; limit: number },
): Promise<DeploymentInRange[]> {
  return db.deployment.findMany({
    where: {
      startedAt: { lt: new Date(query.toMs) },
      OR: [{ finishedAt: { gte: new Date(query.fromMs) } }, { finishedAt: null, startedAt: { gte: new Date(query.fromMs - OPEN_DEPLOYMENT_MAX_MS) } }],
      ...(query.service === null ? {} : { service: query.service }),
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: { id: true, service: true, version: true, environment: true, startedAt: true, finishedAt: true, link: true, description: true },
  });
}
