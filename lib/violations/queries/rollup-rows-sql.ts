import "server-only";

import { empty, join, sql, type Sql, timestampSql } from "@/lib/db/sql";
import { windowEdgesSql } from "@/lib/deployments/window-sql";
import type { Binning } from "@/lib/violations/queries/binning";
import { rollupScopeSql, type ClassificationScope } from "@/lib/violations/queries/classification-sql";

const HOUR_MS = 3_600_000;

/** Which rollup a read takes its rows from. */
export type RollupResolution = "minute" | "hour";

const isWholeHour = (ms: number) => ms % HOUR_MS === 0;

/**
 * The hourly rollup serves a binning when every bin is made of whole UTC hours: the stride is a
 * whole number of hours and every origin and offset change falls on an hour (UTC, or a zone whose
 * offsets are whole hours; Kathmandu's +05:45 reads minutes). A 7-day chart (1-hour buckets)
 * then reads 60 times fewer rows.
 */
export function chooseRollupResolution(scope: ClassificationScope, binning: Binning): RollupResolution {
  if (binning.strideMs < HOUR_MS || !isWholeHour(binning.strideMs)) return "minute";
  const isAligned = binning.spans.every((span, i) => isWholeHour(span.originMs) && (i === 0 || isWholeHour(span.fromMs)));
  return isAligned && scope.endMs - scope.startMs >= HOUR_MS ? "hour" : "minute";
}

/** The scope's filters on service and subscription (alias vm). */
function scopeFiltersSql(scope: ClassificationScope): Sql {
  const filters = [
    ...(scope.service === null ? [] : [sql`and vm.service = ${scope.service}`]),
    ...(scope.subscription === null ? [] : [sql`and vm.subscription = ${scope.subscription}`]),
  ];
  return filters.length === 0 ? empty : join(filters, " ");
}

/**
 * (service, hour): the hours in which one of a service's classification windows starts or ends
 * off the hour. Only there do a service's minutes classify differently within one hour; every
 * other hour is wholly inside its windows or wholly outside. Taken per deployment, before the
 * windows are merged: a superset of the merged windows' edges, which only means reading minutes
 * for a few hours that did not need it.
 */
function splitHoursSql(scope: ClassificationScope): Sql {
  return sql`
    select distinct e.service, date_trunc('hour', e.edge, 'UTC') as hour
    from (${windowEdgesSql(scope)}) e
    where e.edge <> date_trunc('hour', e.edge, 'UTC')`;
}

/**
 * The scope's rollup rows (bucket, service, subscription, violations, events), as a subquery to
 * read `from (...) vm`. From the minute rollup, or, at the hour resolution, from the hour rollup
 * for the scope's whole hours and from the minute rollup for the minutes of its cut first and
 * last hours and of the hours a deployment window starts or ends within. Either way each minute
 * of the scope is counted once, and each row classifies as its minutes do: the same sums, bin by
 * bin, whichever rollup is read.
 */
export function rollupRowsSql(scope: ClassificationScope, resolution: RollupResolution): Sql {
  if (resolution === "minute") {
    return sql`select vm.bucket, vm.service, vm.subscription, vm.violations, vm.events from violation_minute vm where ${rollupScopeSql(scope)}`;
  }
  const firstHour = Math.ceil(scope.startMs / HOUR_MS) * HOUR_MS;
  const lastHourEnd = Math.max(firstHour, Math.floor(scope.endMs / HOUR_MS) * HOUR_MS);
  const filters = scopeFiltersSql(scope);
  return sql`
    select vm.bucket, vm.service, vm.subscription, vm.violations, vm.events
    from violation_hour vm
    where vm.bucket >= ${timestampSql(firstHour)} and vm.bucket < ${timestampSql(lastHourEnd)} ${filters}
      and not exists (select 1 from (${splitHoursSql(scope)}) s where s.service = vm.service and s.hour = vm.bucket)
    union all
    select vm.bucket, vm.service, vm.subscription, vm.violations, vm.events
    from violation_minute vm
    where ((vm.bucket >= ${timestampSql(scope.startMs)} and vm.bucket < ${timestampSql(firstHour)})
        or (vm.bucket >= ${timestampSql(lastHourEnd)} and vm.bucket < ${timestampSql(scope.endMs)})) ${filters}
    union all
    select vm.bucket, vm.service, vm.subscription, vm.violations, vm.events
    from (${splitHoursSql(scope)}) s
    join violation_minute vm on vm.service = s.service and vm.bucket >= s.hour and vm.bucket < s.hour + interval '1 hour'
    where s.hour >= ${timestampSql(firstHour)} and s.hour < ${timestampSql(lastHourEnd)} ${filters}`;
}
