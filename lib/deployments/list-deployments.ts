import "server-only";

import type { Db } from "@/lib/db/client";
import { DEPLOYMENT_SELECT, type DeploymentJson, toDeploymentJson } from "@/lib/deployments/deployment-json";
import type { ListDeploymentsQuery } from "@/lib/deployments/deployment-schema";

/** Deployments that started in [from, to), newest first, filtered by service and environment. */
export async function listDeployments(db: Db, query: ListDeploymentsQuery): Promise<DeploymentJson[]> {
  const rows = await db.deployment.findMany({
    where: {
      ...(query.service === undefined ? {} : { service: query.service }),
      ...(query.environment === undefined ? {} : { environment: query.environment }),
      startedAt: {
        ...(query.from === undefined ? {} : { gte: new Date(query.from) }),
        ...(query.to === undefined ? {} : { lt: new Date(query.to) }),
      },
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: DEPLOYMENT_SELECT,
  });
  return rows.map(toDeploymentJson);
}
