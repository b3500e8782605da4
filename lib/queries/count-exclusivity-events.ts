import "server-only";

import type { Db } from "@/lib/db/client";

export type ExclusivityEventCounts = { events: number; violations: number };

export async function countExclusivityEvents(db: Db): Promise<ExclusivityEventCounts> {
  const [events, violations] = await Promise.all([db.exclusivityEvent.count(), db.exclusivityEvent.count({ where: { counter: { gt: 0 } } })]);
  return { events, violations };
}
