import "server-only";

import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { rollupScopeSql, type ClassificationScope } from "@/lib/violations/queries/classification-sql";
import { type Binning, originSql, spanIndexSql } from "@/lib/violations/queries/read-violation-rows";
import type { BinnedIncrements } from "@/lib/violations/increments-per-bucket";

/**
 * The scope's increments per bin: violation_minute.events, which holds both the events stored
 * and the counts of clients in "violations+counts" mode, summed per bin on the same wall-clock
 * binning as the violations. One scan of the range's minutes on the rollup's primary key.
 */
export async function readIncrementRows(db: Db, scope: ClassificationScope, binning: Binning): Promise<BinnedIncrements[]> {
  const spans = binning.spans;
  const rows = await db.$queryRaw<{ bin_start: number; span: number; increments: number }[]>(Prisma.sql`
    select (extract(epoch from date_bin(${binning.strideMs}::double precision * interval '1 millisecond', vm.bucket, ${originSql(spans)})) * 1000)::float8 as bin_start,
      ${spanIndexSql(spans)}::int as span, sum(vm.events)::float8 as increments
    from violation_minute vm
    where ${rollupScopeSql(scope)}
    group by 1, 2`);
  return rows.map((row) => ({ binStart: Number(row.bin_start), spanStart: spans[row.span]?.fromMs ?? scope.startMs, increments: Number(row.increments) }));
}
