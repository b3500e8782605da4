import "server-only";

import type { Db } from "@/lib/db/client";
import type { ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";

/** The change signal each named cluster's poller last stored (null: none yet). */
export async function readChangeSignals(db: Db, clusterNames: string[]): Promise<Map<string, ConsumerSignalStatus | null>> {
  const rows = await db.cluster.findMany({ where: { name: { in: clusterNames } }, select: { name: true, changeSignal: true } });
  return new Map(rows.map((row) => [row.name, (row.changeSignal ?? null) as ConsumerSignalStatus | null]));
}
