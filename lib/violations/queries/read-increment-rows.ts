import "server-only";

import { sql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import type { ClassificationScope } from "@/lib/violations/queries/classification-sql";
import type { Binning } from "@/lib/violations/queries/binning";
import { originSql, spanIndexSql } from "@/lib/violations/queries/read-violation-rows";
import { chooseRollupResolution, rollupRowsSql, type RollupResolution } from "@/lib/violations/queries/rollup-rows-sql";
import type { BinnedIncrements } from "@/lib/violations/increments-per-bucket";

/**
 * The scope's increments per bin: violation_minute.events, which holds both the events stored
 * and the counts of clients in "violations+counts" mode, summed per bin on the same wall-clock
 * binning as the violations. One scan of the range on the primary key of the rollup the bins
 * allow (hours when they are whole hours; see rollupRowsSql).
 */
export async function readIncrementRows(
  db: SqlDb,
  scope: ClassificationScope,
  binning: Binning,
  resolution: RollupResolution = chooseRollupResolution(scope, binning),
): Promise<BinnedIncrements[]> {
  const spans = binning.spans;
  const rows = await db.$queryRaw<{ bin_start: number; span: number; increments: number }[]>(sql`
    select (extract(epoch from date_bin(${binning.strideMs}::double precision * interval '1 millisecond', vm.bucket, ${originSql(spans)})) * 1000)::float8 as bin_start,
      ${spanIndexSql(spans)}::int as span, sum(vm.events)::float8 as increments
    from (${rollupRowsSql(scope, resolution)}) vm
    group by 1, 2`);
  return rows.map((row) => ({ binStart: Number(row.bin_start), spanStart: spans[row.span]?.fromMs ?? scope.startMs, increments: Number(row.increments) }));
}
