import "server-only";

import type { Db } from "@/lib/db/client";
import { DEPLOYMENT_SELECT, type DeploymentJson, toDeploymentJson } from "@/lib/deployments/deployment-json";
import { deploymentNotFound, deploymentWhere } from "@/lib/deployments/deployment-ref";
import type { UpdateDeploymentInput } from "@/lib/deployments/deployment-schema";
import { assertTimesInOrder, toJsonColumn } from "@/lib/deployments/deployment-values";

/** Changes the fields a PATCH carries; the times must stay in order. 404 for an unknown id. */
export async function updateDeployment(db: Db, ref: string, patch: UpdateDeploymentInput): Promise<DeploymentJson> {
  // Read, check and write in one transaction so that a concurrent PATCH cannot put the times
  // out of order between the check and the write.
  return db.$transaction(async (tx) => {
    const existing = await tx.deployment.findUnique({ where: deploymentWhere(ref), select: { id: true, startedAt: true, finishedAt: true } });
    if (!existing) throw deploymentNotFound(ref);
    const startedAtMs = patch.startedAt ?? existing.startedAt.getTime();
    const finishedAtMs = patch.finishedAt === undefined ? (existing.finishedAt?.getTime() ?? null) : patch.finishedAt;
    assertTimesInOrder(startedAtMs, finishedAtMs);
    const row = await tx.deployment.update({
      where: { id: existing.id },
      data: {
        ...(patch.service === undefined ? {} : { service: patch.service }),
        ...(patch.version === undefined ? {} : { version: patch.version }),
        ...(patch.environment === undefined ? {} : { environment: patch.environment }),
        ...(patch.startedAt === undefined ? {} : { startedAt: new Date(patch.startedAt) }),
        ...(patch.finishedAt === undefined ? {} : { finishedAt: patch.finishedAt === null ? null : new Date(patch.finishedAt) }),
        ...(patch.link === undefined ? {} : { link: patch.link }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.attributes === undefined ? {} : { attributes: toJsonColumn(patch.attributes) }),
      },
      select: DEPLOYMENT_SELECT,
    });
    return toDeploymentJson(row);
  });
}
