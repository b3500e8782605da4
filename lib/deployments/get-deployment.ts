import "server-only";

import type { Db } from "@/lib/db/client";
import { DEPLOYMENT_SELECT, type DeploymentJson, toDeploymentJson } from "@/lib/deployments/deployment-json";
import { deploymentNotFound, deploymentWhere } from "@/lib/deployments/deployment-ref";

/** One deployment by Baton id or client id; 404 when there is none. */
export async function getDeployment(db: Db, ref: string): Promise<DeploymentJson> {
  const row = await db.deployment.findUnique({ where: deploymentWhere(ref), select: DEPLOYMENT_SELECT });
  if (!row) throw deploymentNotFound(ref);
  return toDeploymentJson(row);
}
