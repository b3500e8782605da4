import "server-only";

import type { Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/http/api-error";

/**
 * The `{id}` of a deployment URL: digits name Baton's id, anything else the client's own id
 * (the `id` it posted). A client id made only of digits is reached through a re-POST instead.
 */
export function deploymentWhere(ref: string): Prisma.DeploymentWhereUniqueInput {
  return /^\d{1,18}$/.test(ref) ? { id: BigInt(ref) } : { externalId: ref };
}

export function deploymentNotFound(ref: string): ApiError {
  return new ApiError(404, "deployment_not_found", `No deployment has the id "${ref}".`);
}
