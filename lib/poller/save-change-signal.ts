import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";

/**
 * Stores what a cluster's change signal is doing on its row, after each cycle and each re-poll it
 * caused, for the Clusters page (which runs in another process). One row, one statement.
 */
export async function saveChangeSignal(db: Db, clusterId: number, status: Record<string, unknown>): Promise<void> {
  await db.cluster.update({ where: { id: clusterId }, data: { changeSignal: status as Prisma.InputJsonValue }, select: { id: true } });
}
