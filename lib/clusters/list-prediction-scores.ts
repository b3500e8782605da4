import "server-only";

import type { PredictionScore } from "@/lib/board/board-types";
import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";

/**
 * Each cluster's prediction score: its holder changes by how they compared with the next holder
 * Baton predicted just before (holder_change.prediction). One grouped count over the scored rows
 * only (a partial index holds exactly those).
 */
export async function listPredictionScores(db: SqlDb, clusterNames: string[]): Promise<Map<string, PredictionScore>> {
  const rows = await db.$queryRaw<{ name: string; confirmed: number; wrong: number; not_predicted: number }[]>(sql`
    select c.name,
      count(*) filter (where h.prediction = 'CONFIRMED')::int as confirmed,
      count(*) filter (where h.prediction = 'WRONG')::int as wrong,
      count(*) filter (where h.prediction = 'NOT_PREDICTED')::int as not_predicted
    from holder_change h
    join cluster c on c.id = h.cluster_id
    where h.prediction is not null and c.name = any(${clusterNames}::text[])
    group by c.name`);
  return new Map(rows.map((r) => [r.name, { predicted: r.confirmed + r.wrong, confirmed: r.confirmed, wrong: r.wrong, notPredicted: r.not_predicted }]));
}
