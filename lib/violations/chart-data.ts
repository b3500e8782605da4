// What the violations chart draws, prepared: bars per bucket (stacked per cause, or by
// service), hatched spans where nothing was reported, deployment bands cut to the range, and
// axis ticks. The chart component maps these to pixels and decides nothing. Client-safe, pure.

import { type CauseCounts, VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import type { DeploymentBand, TimelineBucket, ViolationCounts } from "@/lib/violations/violation-types";

export type ChartMode = "classification" | "services" | "split";
export const CHART_MODES: readonly ChartMode[] = ["classification", "services", "split"];

export type ChartPoint = {
  start: number;
  end: number;
  /** Where the bar is drawn: the middle of its bucket. */
  mid: number;
  isPartial: boolean;
  /** null: nothing reported in the bucket (for the chart's scope), drawn as a gap. */
  counts: ViolationCounts | null;
  /** Violations per service, for the stacked-by-service mode; a missing service reported nothing. */
  byService: Record<string, number>;
  /** Increments reported (events and counts) in the chart's scope; null when unobserved or unknown (one service of a split chart). */
  increments: number | null;
  /**
   * Per cause, once the classified violations are known (withCauses): rollout is the bucket's
   * inside count (the same definition), the others are the classified violations outside
   * rollouts in the bucket; `unclassified` what the classified page did not reach (older than
   * the latest classified, or not classified yet). Null until then.
   */
  causes: (CauseCounts & { unclassified: number }) | null;
};

/** Bars for every service together, or for one service (split mode). */
export function toChartPoints(buckets: readonly TimelineBucket[], service: string | null = null): ChartPoint[] {
  return buckets.map((bucket) => {
    const start = Date.parse(bucket.start);
    const end = Date.parse(bucket.end);
    const counts = service === null ? bucket.total : (bucket.byService[service] ?? null);
    const byService: Record<string, number> = {};
    for (const [name, c] of Object.entries(bucket.byService)) if (service === null || name === service) byService[name] = c.violations;
    return {
      start,
      end,
      mid: (start + end) / 2,
      isPartial: bucket.isPartial,
      counts,
      byService,
      increments: service === null ? bucket.increments : null,
      causes: null,
    };
  });
}

/** A classified violation, as much as the chart needs (lib/violations/queries/get-violation-causes.ts). */
export type ClassifiedInstant = { observedAt: string; cause: ViolationCause; service: string };

/**
 * The points with their causes: each bucket's violations outside rollouts split by the causes
 * of the classified violations that fall in it (for `service` only, when given); what they do
 * not cover is unclassified. The bars then add up to the same totals as before.
 */
export function withCauses(points: readonly ChartPoint[], classified: readonly ClassifiedInstant[], service: string | null = null): ChartPoint[] {
  const times = classified
    .filter((v) => v.cause !== "rollout" && (service === null || v.service === service))
    .map((v) => ({ at: Date.parse(v.observedAt), cause: v.cause }));
  return points.map((point) => {
    if (point.counts === null) return point;
    const causes = {
      "two-hands": 0,
      rollout: point.counts.inside,
      "holder-stalled": 0,
      "worker-stalled": 0,
      "failover-overlap": 0,
      unexplained: 0,
      unclassified: 0,
    };
    let left = point.counts.outside;
    for (const cause of VIOLATION_CAUSES) {
      if (cause === "rollout") continue;
      const found = times.filter((t) => t.cause === cause && t.at >= point.start && t.at < point.end).length;
      causes[cause] = Math.min(found, left);
      left -= causes[cause];
    }
    causes.unclassified = left;
    return { ...point, causes };
  });
}

/** Bottom up: the causes to act on first, then handover noise, rollout, and what is not classified. */
export const CAUSE_STACK_ORDER: readonly (ViolationCause | "unclassified")[] = [
  "two-hands",
  "unexplained",
  "holder-stalled",
  "worker-stalled",
  "failover-overlap",
  "rollout",
  "unclassified",
];

/** Runs of consecutive unobserved buckets, merged: where the chart hatches "no reports". */
export function unobservedSpans(points: readonly ChartPoint[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const point of points) {
    if (point.counts !== null) continue;
    const last = spans[spans.length - 1];
    if (last && last.end === point.start) last.end = point.end;
    else spans.push({ start: point.start, end: point.end });
  }
  return spans;
}

export type BandSpan = {
  id: string;
  service: string;
  /** The rollout itself, cut to the chart. */
  start: number;
  activeEnd: number;
  /** The grace period after it, cut to the chart (equal to activeEnd when none shows). */
  windowEnd: number;
  isInProgress: boolean;
};

/** Deployment bands cut to [fromMs, toMs]; those entirely outside are dropped. */
export function toBandSpans(bands: readonly DeploymentBand[], fromMs: number, toMs: number, nowMs: number, service: string | null = null): BandSpan[] {
  const spans: BandSpan[] = [];
  for (const band of bands) {
    if (service !== null && band.service !== service) continue;
    const startedAt = Date.parse(band.startedAt);
    const windowEnd = Date.parse(band.windowEnd);
    const finishedAt = band.finishedAt === null ? Math.min(nowMs, windowEnd) : Date.parse(band.finishedAt);
    if (windowEnd < fromMs || startedAt > toMs) continue;
    const start = Math.max(startedAt, fromMs);
    const activeEnd = Math.max(start, Math.min(finishedAt, toMs));
    spans.push({
      id: band.id,
      service: band.service,
      start,
      activeEnd,
      windowEnd: Math.max(activeEnd, Math.min(windowEnd, toMs)),
      isInProgress: band.finishedAt === null,
    });
  }
  return spans;
}

/** The deployments whose window overlaps [start, end): what a bucket's tooltip lists. */
export function bandsOverlapping(bands: readonly DeploymentBand[], start: number, end: number, service: string | null = null): DeploymentBand[] {
  return bands.filter((b) => (service === null || b.service === service) && Date.parse(b.startedAt) < end && Date.parse(b.windowEnd) >= start);
}

/** At most `maxTicks` bucket starts, evenly picked, for the time axis. */
export function pickTicks(points: readonly ChartPoint[], maxTicks: number): number[] {
  if (points.length === 0) return [];
  const every = Math.max(1, Math.ceil(points.length / maxTicks));
  const ticks: number[] = [];
  for (let i = 0; i < points.length; i += every) ticks.push(points[i]!.start);
  return ticks;
}

/** The tallest bar, for a shared y scale across split charts (at least 1, so an empty chart has an axis). */
export function maxViolations(points: readonly ChartPoint[]): number {
  return points.reduce((max, p) => Math.max(max, p.counts?.violations ?? 0), 1);
}

export type BarSegment = { label: string; value: number; color: string; y0: number; y1: number };

export type SegmentColors = { causes: Record<ViolationCause | "unclassified", string>; services: Record<string, string> };

/**
 * One bar's stacked segments, bottom up: one per cause (CAUSE_STACK_ORDER; before the causes are
 * known, the whole outside count is unclassified), or one per service in the given order. Empty
 * segments are left out.
 */
export function barSegments(point: ChartPoint, mode: "classification" | "services", serviceOrder: readonly string[], colors: SegmentColors): BarSegment[] {
  const counts = point.counts;
  const causes =
    point.causes ??
    (counts
      ? {
          "two-hands": 0,
          rollout: counts.inside,
          "holder-stalled": 0,
          "worker-stalled": 0,
          "failover-overlap": 0,
          unexplained: 0,
          unclassified: counts.outside,
        }
      : null);
  const parts: { label: string; value: number; color: string }[] =
    mode === "classification"
      ? CAUSE_STACK_ORDER.map((cause) => ({ label: cause, value: causes?.[cause] ?? 0, color: colors.causes[cause] }))
      : serviceOrder.map((service) => ({
          label: service,
          value: point.byService[service] ?? 0,
          color: colors.services[service] ?? colors.causes.unclassified,
        }));
  const segments: BarSegment[] = [];
  let y = 0;
  for (const part of parts) {
    if (part.value <= 0) continue;
    segments.push({ ...part, y0: y, y1: y + part.value });
    y += part.value;
  }
  return segments;
}
