import "server-only";

import type { Db } from "@/lib/db/client";

export type DeploymentRow = {
  id: string;
  service: string;
  version: string;
  environment: string;
  startedAt: string;
  finishedAt: string | null;
  link: string | null;
  description: string | null;
};

export async function listRecentDeployments(db: Db, limit: number): Promise<DeploymentRow[]> {
  const rows = await db.deployment.findMany({
    orderBy: { startedAt: "desc" },
    take: limit,
    select: { id: true, service: true, version: true, environment: true, startedAt: true, finishedAt: true, link: true, description: true },
  });
  return rows.map((row) => ({ ...row, id: row.id.toString(), startedAt: row.startedAt.toISOString(), finishedAt: row.finishedAt?.toISOString() ?? null }));
}
