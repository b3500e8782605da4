import "server-only";

import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/http/api-error";
import { DEPLOYMENT_SELECT, type DeploymentJson, toDeploymentJson } from "@/lib/deployments/deployment-json";
import { deploymentNotFound, deploymentWhere } from "@/lib/deployments/deployment-ref";
import { assertTimesInOrder } from "@/lib/deployments/deployment-values";

/**
 * Marks an open deployment finished, now or at the given time. A finished deployment is left
 * as it is and answers 409 with its finishedAt (the first finish is the truth).
 */
export async function finishDeployment(db: Db, ref: string, finishedAtMs: number = Date.now()): Promise<DeploymentJson> {
  const existing = await db.deployment.findUnique({ where: deploymentWhere(ref), select: { id: true, startedAt: true } });
  if (!existing) throw deploymentNotFound(ref);
  assertTimesInOrder(existing.startedAt.getTime(), finishedAtMs);
  // The finishedAt: null condition makes "finish only if open" one atomic statement.
  const finished = await db.deployment.updateManyAndReturn({
    where: { id: existing.id, finishedAt: null },
    data: { finishedAt: new Date(finishedAtMs) },
    select: DEPLOYMENT_SELECT,
  });
  if (finished[0]) return toDeploymentJson(finished[0]);
  const current = await db.deployment.findUniqueOrThrow({ where: { id: existing.id }, select: { finishedAt: true } });
  throw new ApiError(409, "deployment_already_finished", `The deployment "${ref}" finished already.`, {
    finishedAt: current.finishedAt?.toISOString() ?? null,
  });
}
