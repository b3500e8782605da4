import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/http/api-error";
import { DEPLOYMENT_SELECT, type DeploymentJson, type DeploymentRecord, toDeploymentJson } from "@/lib/deployments/deployment-json";
import type { CreateDeploymentInput } from "@/lib/deployments/deployment-schema";
import { assertTimesInOrder, toJsonColumn } from "@/lib/deployments/deployment-values";

export type CreatedDeployment = { deployment: DeploymentJson; isCreated: boolean };

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/**
 * Records a deployment. With a client `id` the call is idempotent: posting the same id again
 * (a retry, or the end of the rollout carrying finishedAt) updates the fields it carries and
 * answers the same row, provided service, version and environment match (else 409).
 */
export async function createDeployment(db: Db, input: CreateDeploymentInput): Promise<CreatedDeployment> {
  if (input.id !== undefined) {
    const existing = await db.deployment.findUnique({ where: { externalId: input.id }, select: DEPLOYMENT_SELECT });
    if (existing) return { deployment: await repost(db, existing, input), isCreated: false };
  }
  // Only a new row defaults its start to now: a re-post is checked against the stored row.
  const startedAtMs = input.startedAt ?? Date.now();
  assertTimesInOrder(startedAtMs, input.finishedAt ?? null);
  const data = {
    externalId: input.id ?? null,
    service: input.service,
    version: input.version,
    environment: input.environment,
    startedAt: new Date(startedAtMs),
    finishedAt: input.finishedAt == null ? null : new Date(input.finishedAt),
    link: input.link ?? null,
    description: input.description ?? null,
    attributes: toJsonColumn(input.attributes ?? null),
  };
  try {
    return { deployment: toDeploymentJson(await db.deployment.create({ data, select: DEPLOYMENT_SELECT })), isCreated: true };
  } catch (error) {
    // Two posts of the same id raced; the other one created the row.
    if (input.id === undefined || !isUniqueViolation(error)) throw error;
    const existing = await db.deployment.findUniqueOrThrow({ where: { externalId: input.id }, select: DEPLOYMENT_SELECT });
    return { deployment: await repost(db, existing, input), isCreated: false };
  }
}

async function repost(db: Db, existing: DeploymentRecord, input: CreateDeploymentInput): Promise<DeploymentJson> {
  const isSameDeployment = existing.service === input.service && existing.version === input.version && existing.environment === input.environment;
  if (!isSameDeployment) {
    throw new ApiError(409, "deployment_conflict", `A deployment with id "${input.id}" exists for another service, version or environment.`, {
      existing: { service: existing.service, version: existing.version, environment: existing.environment },
    });
  }
  const startedAtMs = input.startedAt ?? existing.startedAt.getTime();
  const finishedAtMs = input.finishedAt === undefined ? (existing.finishedAt?.getTime() ?? null) : input.finishedAt;
  assertTimesInOrder(startedAtMs, finishedAtMs);
  const row = await db.deployment.update({
    where: { id: existing.id },
    data: {
      ...(input.startedAt === undefined ? {} : { startedAt: new Date(input.startedAt) }),
      ...(input.finishedAt === undefined ? {} : { finishedAt: input.finishedAt === null ? null : new Date(input.finishedAt) }),
      ...(input.link === undefined ? {} : { link: input.link }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.attributes === undefined ? {} : { attributes: toJsonColumn(input.attributes) }),
    },
    select: DEPLOYMENT_SELECT,
  });
  return toDeploymentJson(row);
}
