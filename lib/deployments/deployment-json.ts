import "server-only";

import type { Prisma } from "@/lib/db/generated/client";

/** A deployment as the API returns it: ids as strings (BigInt), times as ISO strings. */
export type DeploymentJson = {
  id: string;
  externalId: string | null;
  service: string;
  version: string;
  environment: string;
  startedAt: string;
  finishedAt: string | null;
  link: string | null;
  description: string | null;
  attributes: Prisma.JsonValue | null;
  createdAt: string;
};

export const DEPLOYMENT_SELECT = {
  id: true,
  externalId: true,
  service: true,
  version: true,
  environment: true,
  startedAt: true,
  finishedAt: true,
  link: true,
  description: true,
  attributes: true,
  createdAt: true,
} as const satisfies Prisma.DeploymentSelect;

export type DeploymentRecord = Prisma.DeploymentGetPayload<{ select: typeof DEPLOYMENT_SELECT }>;

export function toDeploymentJson(row: DeploymentRecord): DeploymentJson {
  return {
    ...row,
    id: row.id.toString(),
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
