import "server-only";

import type { SqlDb } from "@/lib/db/sql-db";
import { describeTrend } from "@/lib/violations/describe-trend";
import type { ClassificationScope } from "@/lib/violations/queries/classification-sql";
import { incrementsPerBucket } from "@/lib/violations/increments-per-bucket";
import { listDeploymentBands } from "@/lib/deployments/list-deployment-bands";
import { readIncrementRows } from "@/lib/violations/queries/read-increment-rows";
import { probeObservations, readViolationRows, wallClockBinning } from "@/lib/violations/queries/read-violation-rows";
import { assignBuckets, missingObservations, summariseBuckets } from "@/lib/violations/summarise-buckets";
import { buildBuckets, chooseBucketMs, minuteWindow } from "@/lib/violations/time-buckets";
import { offsetSpans } from "@/lib/violations/time-zone";
import type { ViolationTimeline } from "@/lib/violations/violation-types";

export type ViolationQuery = {
  fromMs: number;
  toMs: number;
  timeZone: string;
  service: string | null;
  subscription: string | null;
  environment: string | null;
  graceMs: number;
  nowMs?: number;
};

/** The scope a query reads: whole minutes, the classification settings. */
export function scopeOf(query: ViolationQuery, nowMs: number): ClassificationScope {
  const { startMs, endMs } = minuteWindow(query.fromMs, query.toMs);
  return { startMs, endMs, graceMs: query.graceMs, nowMs, service: query.service, subscription: query.subscription, environment: query.environment };
}

/**
 * Violations per bucket (size chosen from the range, on the reader's wall clock), classified
 * against deployments, with the increments per bucket (the rate), the deployments overlapping the
 * range and the trend. Four statements: the classified rollup rows with violations, the
 * increments per bin and the deployment bands (together),
 * then index probes for the buckets and services the rows say nothing about (reported events
 * but no violation, or reported nothing).
 */
export async function getViolationTimeline(db: SqlDb, query: ViolationQuery): Promise<ViolationTimeline> {
  const nowMs = query.nowMs ?? Date.now();
  const scope = scopeOf(query, nowMs);
  const bucketMs = chooseBucketMs(query.toMs - query.fromMs);
  const buckets = buildBuckets({ fromMs: query.fromMs, toMs: query.toMs, bucketMs, timeZone: query.timeZone, nowMs });
  const binning = wallClockBinning(bucketMs, offsetSpans(query.timeZone, scope.startMs, scope.endMs));
  const [binned, deployments, incrementRows] = await Promise.all([
    readViolationRows(db, scope, binning),
    listDeploymentBands(db, scope),
    readIncrementRows(db, scope, binning),
  ]);
  const rows = assignBuckets(binned, buckets);
  const observed = await probeObservations(db, scope, buckets, missingObservations(buckets.length, rows));
  const summary = summariseBuckets(buckets, rows, observed);
  const increments = incrementsPerBucket(incrementRows, buckets);
  for (const [i, bucket] of summary.buckets.entries()) bucket.increments = increments[i] ?? null;
  // With a subscription filter, the bands are those of the services that consume it.
  const servicesInScope = new Set(summary.services.map((s) => s.name));
  const bands = query.subscription === null ? deployments : deployments.filter((d) => servicesInScope.has(d.service));
  return {
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    timeZone: query.timeZone,
    bucketMs,
    graceMs: query.graceMs,
    environment: query.environment,
    ...summary,
    trend: describeTrend(summary.buckets),
    deployments: bands,
  };
}
