// Turns classified rollup rows into the chart's buckets, the range's totals and the
// per-service and per-subscription lists. Client-safe and pure. Gap semantics: a bucket nobody
// reported an event in is null (unobserved), never 0; a bucket with events but no violation is
// 0. Rows exist only where there were violations, so "reported but no violation" comes from
// observation probes (see missingObservations).

import { bucketIndexOf, type TimeBucket } from "@/lib/violations/time-buckets";
import type { NamedCounts, SubscriptionCounts, TimelineBucket, TopRanking, ViolationCounts } from "@/lib/violations/violation-types";
import { compareText } from "@/lib/compare-text";

/** A row as the query returns it: binned with a fixed stride from the origin of its time-zone span. */
export type BinnedRow = {
  binStart: number;
  /** Where the offset span the row was binned in starts: a bin may begin before it. */
  spanStart: number;
  service: string;
  /** "" when the events named no subscription. */
  subscription: string;
  violations: number;
  inside: number;
};

/** A row placed in a bucket. */
export type ClassifiedRow = Omit<BinnedRow, "binStart" | "spanStart"> & { bucket: number };

/** A bucket in which events were reported: by anyone (service null) or by one service. */
export type Observation = { bucket: number; service: string | null };

/**
 * Each row's bucket. A bin that starts before its span (it straddles a daylight-saving change)
 * holds only rows from the span's start on, and those lie in the bucket holding that start.
 */
export function assignBuckets(rows: readonly BinnedRow[], buckets: readonly TimeBucket[]): ClassifiedRow[] {
  const firstStart = buckets[0]?.start ?? 0;
  const placed: ClassifiedRow[] = [];
  for (const { binStart, spanStart, ...rest } of rows) {
    const bucket = bucketIndexOf(buckets, Math.max(binStart, spanStart, firstStart));
    if (bucket >= 0) placed.push({ ...rest, bucket });
  }
  return placed;
}

/**
 * What the rows cannot tell: for a bucket without rows, whether anyone reported; for a service
 * with violations elsewhere in the range, whether it reported in a bucket where it had none.
 * These are the observation probes to run.
 */
export function missingObservations(bucketCount: number, rows: readonly ClassifiedRow[]): Observation[] {
  const seen = new Set(rows.map((r) => `${r.bucket}\u0000${r.service}`));
  const bucketsWithRows = new Set(rows.map((r) => r.bucket));
  const services = [...new Set(rows.map((r) => r.service))].sort();
  const missing: Observation[] = [];
  for (let bucket = 0; bucket < bucketCount; bucket++) {
    if (!bucketsWithRows.has(bucket)) missing.push({ bucket, service: null });
    for (const service of services) if (!seen.has(`${bucket}\u0000${service}`)) missing.push({ bucket, service });
  }
  return missing;
}

const zeroCounts = (): ViolationCounts => ({ violations: 0, inside: 0, outside: 0 });

function addCounts(target: ViolationCounts, row: Pick<ClassifiedRow, "violations" | "inside">): void {
  target.violations += row.violations;
  target.inside += row.inside;
  target.outside += row.violations - row.inside;
}

type Rankable = { violations: number; outside: number; name?: string };

/** Most violations first (or most outside deployments first), the other count next, then by name. */
function compareBy(ranking: TopRanking): (a: Rankable, b: Rankable) => number {
  return (a, b) =>
    (ranking === "outside" ? b.outside - a.outside || b.violations - a.violations : b.violations - a.violations || b.outside - a.outside) ||
    compareText(a.name ?? "", b.name ?? "");
}

export type SummarisedBuckets = {
  buckets: TimelineBucket[];
  totals: ViolationCounts;
  services: NamedCounts[];
  subscriptions: SubscriptionCounts[];
};

/** `observed` lists the probes that found events; rows imply their own bucket and service were observed. */
export function summariseBuckets(
  buckets: readonly TimeBucket[],
  rows: readonly ClassifiedRow[],
  observed: readonly Observation[],
  ranking: TopRanking = "violations",
): SummarisedBuckets {
  const compare = compareBy(ranking);
  const out: TimelineBucket[] = buckets.map((b) => ({
    start: new Date(b.start).toISOString(),
    end: new Date(b.end).toISOString(),
    isPartial: b.isPartial,
    total: null,
    byService: {},
    increments: null,
  }));
  for (const o of observed) {
    const bucket = out[o.bucket];
    if (!bucket) continue;
    bucket.total ??= zeroCounts();
    if (o.service !== null) bucket.byService[o.service] ??= zeroCounts();
  }
  const totals = zeroCounts();
  const services = new Map<string, NamedCounts>();
  const subscriptions = new Map<string, SubscriptionCounts>();
  for (const row of rows) {
    const bucket = out[row.bucket];
    if (!bucket) continue;
    addCounts((bucket.total ??= zeroCounts()), row);
    addCounts((bucket.byService[row.service] ??= zeroCounts()), row);
    addCounts(totals, row);
    let service = services.get(row.service);
    if (!service) services.set(row.service, (service = { name: row.service, ...zeroCounts() }));
    addCounts(service, row);
    const subscriptionKey = `${row.service}\u0000${row.subscription}`;
    let subscription = subscriptions.get(subscriptionKey);
    if (!subscription) subscriptions.set(subscriptionKey, (subscription = { service: row.service, subscription: row.subscription, ...zeroCounts() }));
    addCounts(subscription, row);
  }
  return {
    buckets: out,
    totals,
    services: [...services.values()].sort(compare),
    subscriptions: [...subscriptions.values()].sort(
      (a, b) => compare(a, b) || compareText(a.service, b.service) || compareText(a.subscription, b.subscription),
    ),
  };
}
