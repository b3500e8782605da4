import "server-only";

import { empty, join, sql, type Sql, timestampSql } from "@/lib/db/sql";
import type { SqlDb } from "@/lib/db/sql-db";
import type { Binning } from "@/lib/violations/queries/binning";
import { serviceWindowsSql } from "@/lib/deployments/window-sql";
import { insideViolationsSql, type ClassificationScope } from "@/lib/violations/queries/classification-sql";
import { chooseRollupResolution, rollupRowsSql, type RollupResolution } from "@/lib/violations/queries/rollup-rows-sql";
import type { BinnedRow, Observation } from "@/lib/violations/summarise-buckets";
import type { TimeBucket } from "@/lib/violations/time-buckets";
import type { OffsetSpan } from "@/lib/violations/time-zone";

/** Per-service observation probes beyond this many are not run (see probeObservations). */
const MAX_PROBES = 4_000;

/**
 * How rows are binned: a fixed stride from an origin per time-zone offset span, so that bins
 * fall on the reader's wall clock (date_bin is arithmetic; a per-row search over the bucket
 * boundaries costs more than the scan itself).
 */
/** Bins of the bucket size on the zone's wall clock: per offset span, an origin at a local midnight. */
export function wallClockBinning(bucketMs: number, spans: readonly OffsetSpan[]): Binning {
  return { strideMs: bucketMs, spans: spans.map((span) => ({ fromMs: span.fromMs, originMs: -span.offsetMs })) };
}

/** One bin over the whole scope: for totals and top lists. */
export function singleBin(scope: ClassificationScope): Binning {
  return { strideMs: scope.endMs - scope.startMs, spans: [{ fromMs: scope.startMs, originMs: scope.startMs }] };
}

/** The span index of a minute (alias vm), as a CASE over the spans' starts. */
export function spanIndexSql(spans: Binning["spans"]): Sql {
  if (spans.length <= 1) return sql`0`;
  const branches = spans.slice(1).map((span, i) => sql`when vm.bucket < ${timestampSql(span.fromMs)} then ${i}`);
  return sql`(case ${join(branches, " ")} else ${spans.length - 1} end)`;
}

/** date_bin's origin for a minute (alias vm): its span's. */
export function originSql(spans: Binning["spans"]): Sql {
  const origin = (span: Binning["spans"][number]) => timestampSql(span.originMs);
  if (spans.length <= 1) return origin(spans[0] ?? { fromMs: 0, originMs: 0 });
  const branches = spans.slice(1).map((span, i) => sql`when vm.bucket < ${timestampSql(span.fromMs)} then ${origin(spans[i]!)}`);
  return sql`(case ${join(branches, " ")} else ${origin(spans[spans.length - 1]!)} end)`;
}

/** A row as json_build_array gives it: [bin start in epoch ms, span, service, subscription, violations, inside]. */
type JsonRow = [number, number, string, string, number, number];

/**
 * The scope's violations per bin, service and subscription, classified: the rollup rows with
 * violations (a scan of the range on the primary key of the hourly rollup when the bins are whole
 * hours, of the per-minute one otherwise; see rollupRowsSql), each tested against its service's
 * merged deployment windows, summed in one hash aggregate. The rows come back as one JSON value:
 * decoding thousands of rows through Prisma costs more than building them.
 */
export async function readViolationRows(
  db: SqlDb,
  scope: ClassificationScope,
  binning: Binning,
  resolution: RollupResolution = chooseRollupResolution(scope, binning),
): Promise<BinnedRow[]> {
  const spans = binning.spans;
  const [result] = await db.$queryRaw<{ rows: JsonRow[] }[]>(sql`
    select coalesce(json_agg(json_build_array((extract(epoch from g.bin_start) * 1000)::bigint, g.span, g.service, g.subscription, g.violations, g.inside)), '[]') as rows
    from (
      select m.bin_start, m.span, m.service, m.subscription, sum(m.violations)::int as violations, sum(m.inside)::int as inside
      from (
        select date_bin(${binning.strideMs}::double precision * interval '1 millisecond', vm.bucket, ${originSql(spans)}) as bin_start,
          ${spanIndexSql(spans)} as span, vm.service, vm.subscription, vm.violations, ${insideViolationsSql} as inside
        from (${rollupRowsSql(scope, resolution)}) vm
        left join (${serviceWindowsSql(scope)}) w on w.service = vm.service
        where vm.violations > 0
        -- A fence: each row is classified here, so that whichever way the rows are then grouped
        -- (hash or sort), a service's multirange (kilobytes) never travels with them.
        offset 0
      ) m
      group by 1, 2, 3, 4
    ) g`);
  return (result?.rows ?? []).map(([binStart, span, service, subscription, violations, inside]) => ({
    binStart: Number(binStart),
    spanStart: spans[span]?.fromMs ?? scope.startMs,
    service,
    subscription,
    violations,
    inside,
  }));
}

/**
 * Which of the given (bucket, service) pairs had any event reported (service null: anyone in
 * the scope). One index probe on the rollup's minute per pair, stopping at the first row. Past
 * MAX_PROBES, per-service probes are dropped (those services then show as unobserved where they
 * had no violation); the per-bucket ones always run.
 */
export async function probeObservations(
  db: SqlDb,
  scope: ClassificationScope,
  buckets: readonly TimeBucket[],
  wanted: readonly Observation[],
): Promise<Observation[]> {
  const anyProbes = wanted.filter((o) => o.service === null);
  const serviceProbes = wanted.filter((o) => o.service !== null);
  const probes = [...anyProbes, ...serviceProbes.slice(0, Math.max(0, MAX_PROBES - anyProbes.length))];
  if (probes.length === 0) return [];
  const starts = probes.map((p) => new Date(buckets[p.bucket]!.start).toISOString());
  const ends = probes.map((p) => new Date(buckets[p.bucket]!.end).toISOString());
  const services = probes.map((p) => p.service);
  const filters = [
    ...(scope.service === null ? [] : [sql`vm.service = ${scope.service}`]),
    ...(scope.subscription === null ? [] : [sql`vm.subscription = ${scope.subscription}`]),
  ];
  // LATERAL with LIMIT 1 keeps each probe a separate index range scan on the minute that stops
  // at the first row; an EXISTS would be flattened into a join over every row of the scope.
  const found = await db.$queryRaw<{ i: number }[]>(sql`
    select (p.i - 1)::int as i
    from unnest(${starts}::timestamptz[], ${ends}::timestamptz[], ${services}::text[]) with ordinality as p(s, e, service, i)
    cross join lateral (
      select 1 from violation_minute vm
      where vm.bucket >= p.s and vm.bucket < p.e and (p.service is null or vm.service = p.service)
        ${filters.length === 0 ? empty : sql`and ${join(filters, " and ")}`}
      limit 1) hit`);
  return found.map((f) => probes[f.i]!);
}
